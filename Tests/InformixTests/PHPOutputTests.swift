import Testing

@testable import Informix

/// What PHP does to the request and the answer: $_POST parsing, magic quotes, htmlentities and
/// SimpleXML's addChild/asXML, per PHP version.
@Suite struct PHPOutputTests {
    private func runtime(_ version: PHPRuntime.Version, magicQuotes: Bool = false) -> PHPRuntime {
        var runtime = PHPRuntime()
        runtime.version = version
        runtime.magicQuotesGPC = magicQuotes
        return runtime
    }

    @Test func postFieldsAreParsedAsPHPParsesThem() {
        let php53 = runtime(.php53)
        #expect(
            PHPForm.parse(Array("sql_stmt=SELECT+*+FROM+customer&tableName=customer".utf8), runtime: php53)
                == ["sql_stmt": "SELECT * FROM customer", "tableName": "customer"])
        // An unencoded & inside the SQL splits the field: the seed's special-character limitation.
        #expect(
            PHPForm.parse(Array("sql_stmt=UPDATE customer SET company='A & B'&tableName=customer".utf8), runtime: php53)
                == ["sql_stmt": "UPDATE customer SET company='A ", "tableName": "customer"])
        #expect(
            PHPForm.parse(Array("sql_stmt=a%26b%3Dc%zz&x.y=1&x y=2&flag&a[]=1&k=1&k=2".utf8), runtime: php53)
                == ["sql_stmt": "a&b=c%zz", "x_y": "2", "k": "2"])
        // PHP 5.4+ keeps a field without "=" as "".
        #expect(PHPForm.parse(Array("flag".utf8), runtime: runtime(.php7)) == ["flag": ""])
    }

    @Test func magicQuotesEscapeQuotesAndBackslashes() {
        let fields = PHPForm.parse(
            Array("sql_stmt=SELECT+*+FROM+customer+WHERE+lname%3D'O''Neil'+AND+x%3D%22a%5Cb%22".utf8),
            runtime: runtime(.php53, magicQuotes: true))
        #expect(fields["sql_stmt"] == #"SELECT * FROM customer WHERE lname=\'O\'\'Neil\' AND x=\"a\\b\""#)
    }

    @Test func htmlentitiesDependsOnTheVersion() {
        let text = "Tom & \"Jerry\" <O'Neil> café"
        #expect(
            String(decoding: HTMLEntities.encode(text, runtime: runtime(.php53)), as: UTF8.self)
                == "Tom &amp; &quot;Jerry&quot; &lt;O'Neil&gt; caf&Atilde;&copy;")
        #expect(
            String(decoding: HTMLEntities.encode(text, runtime: runtime(.php7)), as: UTF8.self)
                == "Tom &amp; &quot;Jerry&quot; &lt;O'Neil&gt; caf&eacute;")
        #expect(
            String(decoding: HTMLEntities.encode(text, runtime: runtime(.php8)), as: UTF8.self)
                == "Tom &amp; &quot;Jerry&quot; &lt;O&#039;Neil&gt; caf&eacute;")
        // PHP 5.3 takes "ś" (C5 9B) as two Latin-1 characters; 0x9B has no entity and stays a raw byte.
        #expect(HTMLEntities.encode("ś", runtime: runtime(.php53)) == Array("&Aring;".utf8) + [0x9B])
    }

    @Test func addChildThenAsXMLWritesWhatPHPSent() {
        for version in PHPRuntime.Version.allCases {
            var xml = SimpleXMLWriter(runtime: runtime(version), root: "root")
            let row = SimpleXMLWriter.Element("customer")
            xml.openRow(row)
            xml.addChild(.init("ThereWasAnError"), raw: Array("no".utf8))
            xml.addEscapedChild(.init("COMPANY"), "Tom & \"Jerry\" <O'Neil> café\r")
            xml.addChild(.init("ADDRESS2"), raw: [])
            xml.addChild(.init("CAT_DESCR"), raw: nil)
            xml.closeRow(row)
            let text = String(decoding: xml.finish(), as: UTF8.self)
            let company =
                switch version {
                case .php53: "Tom &amp; \"Jerry\" &lt;O'Neil&gt; caf&Atilde;&copy;&#13;"
                case .php7, .php8: "Tom &amp; \"Jerry\" &lt;O'Neil&gt; caf&eacute;&#13;"
                }
            let empty = version == .php53 ? "<ADDRESS2></ADDRESS2>" : "<ADDRESS2/>"
            #expect(
                text == "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root><customer><ThereWasAnError>no</ThereWasAnError>"
                    + "<COMPANY>\(company)</COMPANY>\(empty)<CAT_DESCR/></customer></root>\n")
        }
        var empty = SimpleXMLWriter(runtime: runtime(.php53), root: "cust")
        #expect(String(decoding: empty.finish(), as: UTF8.self) == "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<cust/>\n")
    }

    @Test func theOnePassWriterMatchesHtmlentitiesThenAddChild() {
        let samples = ["plain", "A & B", "<tag attr=\"x\">", "O'Neil", "café ñ €", "ś ő", "tab\tline\r\n", "日本 😀", "&amp; already", ""]
        for version in PHPRuntime.Version.allCases {
            let runtime = runtime(version)
            for sample in samples {
                var direct: [UInt8] = []
                HTMLEntities.appendAsXMLContent(sample, runtime: runtime, to: &direct)
                #expect(
                    direct == SimpleXMLWriter.parsedContent(HTMLEntities.encode(sample, runtime: runtime), runtime: runtime), "\(version) \(sample)")
            }
        }
    }

    @Test func rawAddChildContentHasItsEntitiesParsed() {
        let php53 = runtime(.php53)
        func content(_ text: String, _ runtime: PHPRuntime) -> String {
            String(decoding: SimpleXMLWriter.parsedContent(Array(text.utf8), runtime: runtime), as: UTF8.self)
        }
        #expect(content("a &lt;b&gt; &#65;&#x42; &copy; <c>", php53) == "a &lt;b&gt; AB &copy; &lt;c&gt;")
        // A bare & ends the content: libxml2 2.7 keeps what came before, later versions nothing.
        #expect(content("Error: A & B", php53) == "Error: A ")
        #expect(content("Error: A & B", runtime(.php8)) == "")
    }

    @Test func contentTypesAndMessagesFollowTheVersion() {
        #expect(runtime(.php53).contentType("text/xml") == "text/xml")
        #expect(runtime(.php7).contentType("text/xml") == "text/xml;charset=UTF-8")
        #expect(runtime(.php53).defaultContentType == "text/html")
        #expect(runtime(.php8).defaultContentType == "text/html; charset=UTF-8")
        #expect(
            runtime(.php53).message("Fatal error", "Call to a member function fetchAll() on a non-object", file: "/informix/generic2.php", line: 29)
                == "<br />\n<b>Fatal error</b>:  Call to a member function fetchAll() on a non-object in <b>/var/www/html/informix/generic2.php</b> on line <b>29</b><br />\n"
        )
    }
}

import Foundation

#if canImport(XCTest)
import XCTest
#endif
#if canImport(Testing)
import Testing
#endif

/// Where an assertion (`verify`, `verifyMessages`, `assertNoContractViolations`) was called: its
/// failure is reported there, at the test's own line, not where the client threw.
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    public let fileID: String
    public let filePath: String
    public let line: Int
    public let column: Int

    public init(fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    public var description: String { "\(fileID):\(line)" }
}

/// The XCTest case a scope was made for (`makeScope(for: self)`): failed assertions in the scope
/// are recorded on it. XCTest records from any thread. Held weakly: a test case that keeps its
/// scope in a property does not keep itself alive through it.
struct BoundTestCase: @unchecked Sendable {
    #if canImport(XCTest)
    weak var testCase: XCTestCase?
    #endif
}

enum TestReporting {
    /// Records `failure` as a failure of the running test at `site`: on the XCTest case the scope
    /// was made for, else on Swift Testing's current test. False when neither runs one: the
    /// caller throws the failure instead.
    static func record(_ failure: any Error & CustomStringConvertible, at site: CallSite, on bound: BoundTestCase?) -> Bool {
        #if canImport(XCTest)
        if let testCase = bound?.testCase {
            #if canImport(ObjectiveC)
            let location = XCTSourceCodeLocation(filePath: site.filePath, lineNumber: site.line)
            testCase.record(
                XCTIssue(
                    type: .assertionFailure, compactDescription: failure.description,
                    sourceCodeContext: XCTSourceCodeContext(location: location)))
            #else
            testCase.recordFailure(withDescription: failure.description, inFile: site.filePath, atLine: site.line, expected: true)
            #endif
            return true
        }
        #endif
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: failure.description),
                sourceLocation: SourceLocation(fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
            return true
        }
        #endif
        return false
    }
}

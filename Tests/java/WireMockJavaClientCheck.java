// The official WireMock Java client (the 2.35.1 standalone jar the `wiremock` PyPI package ships),
// unchanged, against a server given as HOST PORT: stubbing, verification, near misses, scenarios,
// removal and resets, as a JUnit test would call them but without JUnit. Each check prints
// "ok NAME" or "FAILED NAME: why"; the exit status is the number of failures. Run it twice on one
// server: every check starts from resetAll(), so a second pass must pass exactly as the first.
import static com.github.tomakehurst.wiremock.client.WireMock.*;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.github.tomakehurst.wiremock.verification.NearMiss;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;

public class WireMockJavaClientCheck {
    static String base;
    static final HttpClient http = HttpClient.newHttpClient();
    static int failures = 0;

    interface Check { void run() throws Exception; }

    public static void main(String[] args) {
        base = "http://" + args[0] + ":" + args[1];
        configureFor(args[0], Integer.parseInt(args[1]));
        check("stub and verify", WireMockJavaClientCheck::stubAndVerify);
        check("edit, read and list stubs", WireMockJavaClientCheck::editReadAndList);
        check("remove a stub", WireMockJavaClientCheck::removeAStub);
        check("find requests and serve events", WireMockJavaClientCheck::findRequests);
        check("near misses of unmatched requests", WireMockJavaClientCheck::nearMisses);
        check("scenarios", WireMockJavaClientCheck::scenarios);
        check("reset to default starts scenarios again", WireMockJavaClientCheck::resetToDefaultStartsScenarios);
        check("metadata", WireMockJavaClientCheck::stubMetadata);
        check("remove serve events", WireMockJavaClientCheck::removeServeEvents);
        check("global settings", WireMockJavaClientCheck::globalSettings);
        check("import stubs", WireMockJavaClientCheck::importStubMappings);
        check("reset requests and mappings", WireMockJavaClientCheck::resets);
        check("remove serve events by stub metadata", WireMockJavaClientCheck::removeServeEventsByStubMetadata);
        check("save mappings", WireMockJavaClientCheck::saveMappings);
        check("recording status and snapshot", WireMockJavaClientCheck::recording);
        System.out.println(failures == 0 ? "all checks passed" : failures + " checks failed");
        System.exit(failures);
    }

    static void check(String name, Check body) {
        try {
            WireMock.reset();
            body.run();
            System.out.println("ok " + name);
        } catch (Throwable error) {
            failures++;
            System.out.println("FAILED " + name + ": " + error);
        }
    }

    static HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static void expect(boolean condition, String what) {
        if (!condition) throw new AssertionError(what);
    }

    static void expectEqual(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }

    static void stubAndVerify() throws Exception {
        stubFor(get(urlEqualTo("/orders/7")).withHeader("Accept", containing("json"))
            .willReturn(okJson("{\"id\":7,\"status\":\"shipped\"}")));
        stubFor(post(urlPathEqualTo("/orders")).withRequestBody(matchingJsonPath("$.item"))
            .willReturn(aResponse().withStatus(201).withHeader("Location", "/orders/8")));
        HttpResponse<String> order = http.send(HttpRequest.newBuilder(URI.create(base + "/orders/7")).header("Accept", "application/json").build(),
            HttpResponse.BodyHandlers.ofString());
        expectEqual(200, order.statusCode(), "GET /orders/7");
        expectEqual("{\"id\":7,\"status\":\"shipped\"}", order.body(), "its body");
        HttpResponse<String> created = send("POST", "/orders", "{\"item\":\"lamp\"}");
        expectEqual(201, created.statusCode(), "POST /orders");
        expectEqual("/orders/8", created.headers().firstValue("Location").orElse(null), "Location");
        send("POST", "/orders", "{\"item\":\"desk\"}");
        verify(getRequestedFor(urlEqualTo("/orders/7")).withHeader("Accept", equalTo("application/json")));
        verify(2, postRequestedFor(urlPathEqualTo("/orders")));
        verify(exactly(1), postRequestedFor(urlPathEqualTo("/orders")).withRequestBody(matchingJsonPath("$.item", equalTo("desk"))));
        verify(lessThan(3), postRequestedFor(urlPathEqualTo("/orders")));
        verify(0, deleteRequestedFor(anyUrl()));
        boolean refused = false;
        try {
            verify(3, postRequestedFor(urlPathEqualTo("/orders")));
        } catch (com.github.tomakehurst.wiremock.client.VerificationException expected) {
            refused = true;
        }
        expect(refused, "verify(3, …) of two requests must fail");
    }

    static void editReadAndList() throws Exception {
        UUID id = UUID.randomUUID();
        stubFor(get(urlEqualTo("/greeting")).withId(id).willReturn(ok("hello")));
        expectEqual("hello", send("GET", "/greeting", null).body(), "before the edit");
        editStub(get(urlEqualTo("/greeting")).withId(id).willReturn(ok("good day")));
        expectEqual("good day", send("GET", "/greeting", null).body(), "after the edit");
        StubMapping read = getSingleStubMapping(id);
        expectEqual(id, read.getId(), "the read stub's id");
        expectEqual("good day", read.getResponse().getBody(), "the read stub's body");
        expectEqual(1, listAllStubMappings().getMappings().size(), "stubs listed");
    }

    static void removeAStub() throws Exception {
        StubMapping kept = stubFor(get(urlEqualTo("/kept")).willReturn(ok("kept")));
        StubMapping gone = stubFor(get(urlEqualTo("/gone")).willReturn(ok("gone")));
        expectEqual(200, send("GET", "/gone", null).statusCode(), "before removal");
        removeStub(gone);
        expectEqual(404, send("GET", "/gone", null).statusCode(), "after removeStub(StubMapping)");
        removeStub(get(urlEqualTo("/kept")));
        expectEqual(404, send("GET", "/kept", null).statusCode(), "after removeStub(MappingBuilder)");
        expectEqual(0, listAllStubMappings().getMappings().size(), "stubs left");
        expect(kept.getId() != null, "stubFor returns the stub with its id");
    }

    static void findRequests() throws Exception {
        stubFor(get(urlPathMatching("/items/.*")).willReturn(ok("item")));
        send("GET", "/items/1?colour=red", null);
        send("GET", "/items/2", null);
        send("GET", "/nothing-here", null);
        List<LoggedRequest> found = findAll(getRequestedFor(urlPathMatching("/items/.*")));
        expectEqual(2, found.size(), "requests found");
        expectEqual("/items/1?colour=red", found.get(0).getUrl(), "the first one's url");
        expectEqual("red", found.get(0).queryParameter("colour").firstValue(), "its query parameter");
        List<ServeEvent> events = getAllServeEvents();
        expectEqual(3, events.size(), "serve events");
        long matched = events.stream().filter(event -> event.getWasMatched()).count();
        expectEqual(2L, matched, "matched serve events");
        List<LoggedRequest> unmatched = findUnmatchedRequests();
        expectEqual(1, unmatched.size(), "unmatched requests");
        expectEqual("/nothing-here", unmatched.get(0).getUrl(), "the unmatched one");
    }

    static void nearMisses() throws Exception {
        stubFor(get(urlEqualTo("/weather/paris")).willReturn(ok("sunny")));
        send("GET", "/weather/pariss", null);
        List<NearMiss> misses = findNearMissesForAllUnmatched();
        expectEqual(1, misses.size(), "near misses of the unmatched request");
        expectEqual("/weather/pariss", misses.get(0).getRequest().getUrl(), "the near miss's request");
        expectEqual("/weather/paris", misses.get(0).getStubMapping().getRequest().getUrl(), "the stub it nearly matched");
        List<NearMiss> forRequest = findNearMissesFor(misses.get(0).getRequest());
        expect(!forRequest.isEmpty(), "near misses for a logged request");
        List<NearMiss> forPattern = findNearMissesFor(getRequestedFor(urlEqualTo("/weather/paris")));
        expect(!forPattern.isEmpty(), "near misses for a request pattern");
        expectEqual("/weather/pariss", forPattern.get(0).getRequest().getUrl(), "the journaled request nearest the pattern");
    }

    static void scenarios() throws Exception {
        stubFor(get(urlEqualTo("/todo")).inScenario("to-do").whenScenarioStateIs(Scenario.STARTED).willReturn(ok("empty")));
        stubFor(post(urlEqualTo("/todo")).inScenario("to-do").whenScenarioStateIs(Scenario.STARTED)
            .willSetStateTo("One item").willReturn(aResponse().withStatus(201)));
        stubFor(get(urlEqualTo("/todo")).inScenario("to-do").whenScenarioStateIs("One item").willReturn(ok("milk")));
        expectEqual("empty", send("GET", "/todo", null).body(), "at the start");
        expectEqual(201, send("POST", "/todo", "milk").statusCode(), "the move");
        expectEqual("milk", send("GET", "/todo", null).body(), "after the move");
        List<Scenario> scenarios = getAllScenarios();
        expectEqual(1, scenarios.size(), "scenarios");
        expectEqual("One item", scenarios.get(0).getState(), "the scenario's state");
        expect(scenarios.get(0).getPossibleStates().contains("One item"), "its possible states");
        resetAllScenarios();
        expectEqual("empty", send("GET", "/todo", null).body(), "after resetAllScenarios");
        setScenarioState("to-do", "One item");
        expectEqual("milk", send("GET", "/todo", null).body(), "after setScenarioState");
        resetScenario("to-do");
        expectEqual("empty", send("GET", "/todo", null).body(), "after resetScenario");
    }

    static void resetToDefaultStartsScenarios() throws Exception {
        for (int pass = 0; pass < 2; pass++) {
            stubFor(get(urlEqualTo("/light")).inScenario("Light").whenScenarioStateIs(Scenario.STARTED)
                .willSetStateTo("On").willReturn(ok("switching on")));
            stubFor(get(urlEqualTo("/light")).inScenario("Light").whenScenarioStateIs("On").willReturn(ok("on")));
            expectEqual("switching on", send("GET", "/light", null).body(), "pass " + pass + ", first call");
            expectEqual("on", send("GET", "/light", null).body(), "pass " + pass + ", second call");
            resetToDefault();
        }
    }

    static void stubMetadata() throws Exception {
        stubFor(get(urlEqualTo("/tagged")).withMetadata(com.github.tomakehurst.wiremock.common.Metadata.metadata().attr("team", "checkout")).willReturn(ok()));
        stubFor(get(urlEqualTo("/other")).withMetadata(com.github.tomakehurst.wiremock.common.Metadata.metadata().attr("team", "search")).willReturn(ok()));
        List<StubMapping> found = findStubsByMetadata(matchingJsonPath("$.team", equalTo("checkout")));
        expectEqual(1, found.size(), "stubs by metadata");
        removeStubsByMetadata(matchingJsonPath("$.team", equalTo("checkout")));
        expectEqual(1, listAllStubMappings().getMappings().size(), "stubs left after removal by metadata");
    }

    static void removeServeEvents() throws Exception {
        stubFor(any(anyUrl()).willReturn(ok()));
        send("GET", "/a", null);
        send("GET", "/b", null);
        List<ServeEvent> removed = WireMock.removeServeEvents(getRequestedFor(urlEqualTo("/a")));
        expectEqual(1, removed.size(), "serve events removed");
        expectEqual(1, getAllServeEvents().size(), "serve events left");
        removeServeEvent(getAllServeEvents().get(0).getId());
        expectEqual(0, getAllServeEvents().size(), "after removing one by id");
    }

    static void globalSettings() throws Exception {
        setGlobalFixedDelay(0);
        expectEqual(Integer.valueOf(0), getSettings().getFixedDelay(), "the fixed delay read back");
    }

    static void importStubMappings() throws Exception {
        importStubs(com.github.tomakehurst.wiremock.stubbing.StubImport.stubImport()
            .stub(get(urlEqualTo("/imported/1")).willReturn(ok("one")))
            .stub(get(urlEqualTo("/imported/2")).willReturn(ok("two"))));
        expectEqual("two", send("GET", "/imported/2", null).body(), "an imported stub");
        expectEqual(2, listAllStubMappings().getMappings().size(), "stubs after the import");
    }

    static void removeServeEventsByStubMetadata() throws Exception {
        stubFor(get(urlEqualTo("/tagged")).withMetadata(com.github.tomakehurst.wiremock.common.Metadata.metadata().attr("team", "checkout")).willReturn(ok()));
        stubFor(get(urlEqualTo("/untagged")).willReturn(ok()));
        send("GET", "/tagged", null);
        send("GET", "/untagged", null);
        List<ServeEvent> removed = removeEventsByStubMetadata(matchingJsonPath("$.team", equalTo("checkout")));
        expectEqual(1, removed.size(), "serve events removed by their stub's metadata");
        expectEqual("/untagged", getAllServeEvents().get(0).getRequest().getUrl(), "the serve event left");
    }

    static void saveMappings() throws Exception {
        StubMapping saved = stubFor(get(urlEqualTo("/saved")).willReturn(ok("saved")));
        saveAllMappings();
        resetToDefault();
        expectEqual("saved", send("GET", "/saved", null).body(), "a saved stub after a reset to the files");
        removeStub(saved);
        resetToDefault();
        expectEqual(404, send("GET", "/saved", null).statusCode(), "a saved stub removed, after a reset to the files");
    }

    static void recording() throws Exception {
        expectEqual(com.github.tomakehurst.wiremock.recording.RecordingStatus.NeverStarted, getRecordingStatus().getStatus(), "recording status");
        stubFor(get(urlEqualTo("/snap")).willReturn(ok("snap")));
        send("GET", "/snap", null);
        snapshotRecord();
    }

    static void resets() throws Exception {
        stubFor(get(urlEqualTo("/x")).willReturn(ok("x")));
        send("GET", "/x", null);
        resetAllRequests();
        verify(0, getRequestedFor(urlEqualTo("/x")));
        removeAllMappings();
        expectEqual(404, send("GET", "/x", null).statusCode(), "after removeAllMappings");
        stubFor(get(urlEqualTo("/x")).willReturn(ok("x")));
        WireMock.reset();
        expectEqual(0, listAllStubMappings().getMappings().size(), "after reset");
    }
}

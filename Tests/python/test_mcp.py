"""The MCP server (`POST /__admin/mcp` and `understudy mcp` over stdio) driven by the official MCP
Python SDK, as an agent host drives it: at 2025-11-25 (the `initialize` handshake) and at
2026-07-28 (stateless requests, which the SDK tries first), over Streamable HTTP and over stdio."""
import json
import os
import tempfile
import time

import anyio
import httpx2
import pytest
import requests
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from websockets.sync.client import connect

from understudy_server import BINARY, serve

TOOLS = {
    "list_stubs", "create_stub", "delete_stub", "find_requests", "count_requests", "near_misses", "unmatched_requests", "reset",
    "list_scopes", "create_scope", "delete_scope", "set_network", "start_recording", "stop_recording", "export_har", "list_emulators",
    "send_message", "find_messages",
}
# "legacy" pins 2025-11-25; "auto" probes with server/discover and so lands on 2026-07-28.
MODES = {"legacy": "2025-11-25", "auto": "2026-07-28", "2026-07-28": "2026-07-28"}


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        with open(os.path.join(stubs, "mappings", "orders.json"), "w") as file:
            json.dump({"request": {"method": "GET", "urlPath": "/orders"}, "response": {"status": 200, "jsonBody": []}}, file)
        with serve(stubs) as url:
            yield url


def run(body):
    return anyio.run(body)


def over_http(url, mode, session, headers=None):
    async def main():
        async with httpx2.AsyncClient(headers=headers or {}, timeout=30) as http:
            async with Client(streamable_http_client(url + "/__admin/mcp", http_client=http), mode=mode) as client:
                return await session(client)
    return run(main)


def over_stdio(url, mode, session, arguments=()):
    async def main():
        parameters = StdioServerParameters(command=BINARY, args=["mcp", "--url", url, *arguments])
        async with Client(parameters, mode=mode) as client:
            return await session(client)
    return run(main)


def text(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.mark.parametrize("mode", MODES)
def test_every_tool_is_listed_with_its_input_schema_at_both_versions(server, mode):
    async def session(client):
        assert client.protocol_version == MODES[mode]
        return (await client.list_tools()).tools
    tools = over_http(server, mode, session)
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.input_schema["type"] == "object" and tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.description
    create = next(tool for tool in tools if tool.name == "create_stub")
    assert create.input_schema["required"] == ["mapping"]
    assert "request" in create.input_schema["properties"]["mapping"]["properties"]
    network = next(tool for tool in tools if tool.name == "set_network")
    assert set(network.input_schema["required"]) == {"scope", "conditions"}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_stub_made_by_a_tool_answers_plain_http_in_its_scope_only(server, mode):
    scope = "made-" + mode.replace("-", "")
    mapping = {"request": {"method": "GET", "urlPath": "/cart"}, "response": {"status": 503, "body": "down for maintenance"}}

    async def session(client):
        made = await client.call_tool("create_stub", {"scope": scope, "mapping": mapping})
        assert not made.is_error, text(made)
        assert made.structured_content["request"]["urlPath"] == "/cart"
        return made.structured_content["id"]
    stub_id = over_http(server, mode, session)
    answer = requests.get(server + "/cart", headers={"X-Understudy-Scope": scope})
    assert answer.status_code == 503 and answer.text == "down for maintenance"
    assert requests.get(server + "/cart").status_code == 404, "the default scope does not see it"

    async def listed(client):
        stubs = await client.call_tool("list_stubs", {"scope": scope})
        assert stub_id in [mapping["id"] for mapping in stubs.structured_content["mappings"]]
        deleted = await client.call_tool("delete_stub", {"scope": scope, "id": stub_id})
        assert not deleted.is_error
        again = await client.call_tool("delete_stub", {"scope": scope, "id": stub_id})
        assert again.is_error and "404" in text(again)
    over_http(server, mode, listed)
    assert requests.get(server + "/cart", headers={"X-Understudy-Scope": scope}).status_code == 404


def test_scopes_made_by_tools_are_isolated_journals(server):
    async def session(client):
        for name in ("iso-a", "iso-b"):
            made = await client.call_tool("create_scope", {"name": name})
            assert not made.is_error and made.structured_content["name"] == name
        names = [scope["name"] for scope in (await client.call_tool("list_scopes", {})).structured_content["scopes"]]
        assert {"iso-a", "iso-b"} <= set(names)
        requests.get(server + "/orders?from=a", headers={"X-Understudy-Scope": "iso-a"})
        found_a = await client.call_tool("find_requests", {"scope": "iso-a", "pattern": {"urlPath": "/orders"}})
        found_b = await client.call_tool("find_requests", {"scope": "iso-b", "pattern": {"urlPath": "/orders"}})
        assert [request["url"] for request in found_a.structured_content["requests"]] == ["/orders?from=a"]
        assert found_b.structured_content["requests"] == []
        counted = await client.call_tool("count_requests", {"scope": "iso-a", "pattern": {"method": "GET"}})
        assert counted.structured_content["count"] == 1
        har = await client.call_tool("export_har", {"scope": "iso-a"})
        entries = har.structured_content["log"]["entries"]
        assert [entry["request"]["url"].split("/", 3)[3] for entry in entries] == ["orders?from=a"]
        assert entries[0]["response"]["content"]["text"] == "[]"
        reset = await client.call_tool("reset", {"scope": "iso-a"})
        assert not reset.is_error
        assert (await client.call_tool("count_requests", {"scope": "iso-a", "pattern": {}})).structured_content["count"] == 0
        gone = await client.call_tool("delete_scope", {"name": "iso-b"})
        assert not gone.is_error
        names = [scope["name"] for scope in (await client.call_tool("list_scopes", {})).structured_content["scopes"]]
        assert "iso-b" not in names
    over_http(server, "auto", session)


def test_set_network_slows_the_scope_and_offline_drops_it(server):
    async def slow(client):
        result = await client.call_tool("set_network", {"scope": "slow", "conditions": {"latencyMs": 400}})
        assert not result.is_error and result.structured_content["network"]["latencyMs"] == 400
    over_http(server, "auto", slow)
    started = time.monotonic()
    assert requests.get(server + "/orders", headers={"X-Understudy-Scope": "slow"}).status_code == 200
    assert time.monotonic() - started >= 0.35, "the scope's latency is applied"

    async def offline(client):
        await client.call_tool("set_network", {"scope": "slow", "conditions": {"offline": True}})
    over_http(server, "legacy", offline)
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(server + "/orders", headers={"X-Understudy-Scope": "slow"})


def test_near_misses_say_why_a_request_was_not_matched(server):
    assert requests.post(server + "/orders", headers={"X-Understudy-Scope": "miss"}).status_code == 404

    async def session(client):
        unmatched = await client.call_tool("unmatched_requests", {"scope": "miss"})
        assert [request["url"] for request in unmatched.structured_content["requests"]] == ["/orders"]
        misses = (await client.call_tool("near_misses", {"scope": "miss"})).structured_content["nearMisses"]
        assert misses and misses[0]["stubMapping"]["request"]["urlPath"] == "/orders"
        by_pattern = await client.call_tool("near_misses", {"scope": "miss", "pattern": {"method": "POST", "urlPath": "/order"}})
        assert by_pattern.structured_content["nearMisses"][0]["request"]["url"] == "/orders"
    over_http(server, "2026-07-28", session)


def test_bad_arguments_and_refused_calls_are_tool_errors(server):
    async def session(client):
        bad = await client.call_tool("set_network", {"scope": "s", "conditions": {"latencyMs": -5}})
        assert bad.is_error and "/conditions/latencyMs: must be at least 0" in text(bad)
        missing = await client.call_tool("create_stub", {})
        assert missing.is_error and "mapping is required" in text(missing)
        refused = await client.call_tool("create_stub", {"mapping": {"request": {"urlPath": "/x", "bodyPatterns": [{"matches": "("}]}}})
        assert refused.is_error and "422" in text(refused)
        assert refused.structured_content["errors"][0]["source"]["pointer"].startswith("/request/bodyPatterns")
    over_http(server, "auto", session)


def test_resources_are_the_scopes_and_a_scopes_journal(server):
    requests.get(server + "/orders?resource=1", headers={"X-Understudy-Scope": "res"})

    async def session(client):
        uris = [str(resource.uri) for resource in (await client.list_resources()).resources]
        assert "understudy://scopes" in uris and "understudy://journal" in uris
        journal = await client.read_resource("understudy://scopes/res/journal")
        body = json.loads(journal.contents[0].text)
        assert [entry["request"]["url"] for entry in body["requests"]] == ["/orders?resource=1"]
        emulators = json.loads((await client.read_resource("understudy://emulators")).contents[0].text)
        assert any(backend["name"] == "stubs" for backend in emulators["backends"])
    over_http(server, "legacy", session)
    over_http(server, "auto", session)


def test_send_message_reaches_an_open_websocket_and_find_messages_reads_it(server):
    headers = {"X-Understudy-Scope": "live"}
    with connect(server.replace("http://", "ws://") + "/updates?user=7", additional_headers=headers, open_timeout=30) as channel:
        async def send(client):
            sent = await client.call_tool("send_message", {
                "scope": "live", "message": {"body": "order shipped"},
                "initiatingRequest": {"urlPath": "/updates", "queryParameters": {"user": {"equalTo": "7"}}}})
            assert not sent.is_error, text(sent)
        over_http(server, "auto", send)
        assert channel.recv(timeout=5) == "order shipped"
        channel.send("thanks")
        deadline = time.monotonic() + 5

        async def find(client):
            found = await client.call_tool("find_messages", {"scope": "live", "pattern": {"body": {"equalTo": "thanks"}}})
            assert not found.is_error, text(found)
            return found.structured_content
        while True:
            messages = over_http(server, "legacy", find)
            events = messages.get("messageServeEvents") or messages.get("messages") or []
            if events or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert [event["message"] for event in events] == ["thanks"], messages


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stdio_relays_to_the_running_server(server, mode):
    async def session(client):
        assert client.protocol_version == MODES[mode]
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == TOOLS
        made = await client.call_tool("create_stub", {"scope": "stdio-" + mode, "mapping": {"request": {"urlPath": "/s"}, "response": {"body": "via stdio"}}})
        assert not made.is_error, text(made)
    over_stdio(server, mode, session)
    assert requests.get(server + "/s", headers={"X-Understudy-Scope": "stdio-" + mode}).text == "via stdio"


def test_the_admin_guard_holds_for_the_mcp_endpoint():
    with tempfile.TemporaryDirectory() as stubs:
        with serve(stubs, "--admin-token", "sesame") as url:
            async def session(client):
                return {tool.name for tool in (await client.list_tools()).tools}
            assert "create_stub" in over_http(url, "auto", session, headers={"Authorization": "Bearer sesame"})
            with pytest.raises(BaseException):
                over_http(url, "legacy", session)
            message = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            plain = requests.post(url + "/__admin/mcp", json=message, headers={"Accept": "application/json"})
            assert plain.status_code == 401
            cross = requests.post(url + "/__admin/mcp", json=message,
                                  headers={"Accept": "application/json", "Authorization": "Bearer sesame", "Origin": "https://evil.example"})
            assert cross.status_code == 403
            # Over stdio, the refusal is a JSON-RPC error the agent host shows.
            with pytest.raises(BaseException) as refused:
                over_stdio(url, "legacy", session)
            assert "401" in repr(refused.value) or "token" in repr(refused.value)
            assert "create_stub" in over_stdio(url, "legacy", session, arguments=["--admin-token", "sesame"])

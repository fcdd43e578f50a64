"""Recording a GraphQL backend by operation: a small GraphQL server made with graphql-core (with
Apollo's automatic persisted queries) is recorded through the server's recording proxy; with it
stopped, the same session, reformatted and in another order, is answered operation by operation
with nothing unmatched."""
import hashlib
import http.server
import json
import os
import tempfile
import threading

import graphql
import pytest
import requests

from understudy_server import serve

SCHEMA = graphql.build_schema("""
    type Hero { id: ID! name: String! friends: [Hero!]! }
    type Review { stars: Int! commentary: String }
    type Query { hero(id: ID!): Hero  heroes(first: Int = 2): [Hero!]! }
    type Mutation { addReview(heroId: ID!, stars: Int!, commentary: String): Review! }
""")
HEROES = {"1": "Luke", "2": "Leia", "3": "Han"}


class Root:
    reviews = []

    @staticmethod
    def hero(_info, id):
        return {"id": id, "name": HEROES[id], "friends": [{"id": other, "name": HEROES[other], "friends": []} for other in HEROES if other != id]} if id in HEROES else None

    @staticmethod
    def heroes(_info, first=2):
        return [{"id": key, "name": name, "friends": []} for key, name in list(HEROES.items())[:first]]

    @staticmethod
    def addReview(_info, heroId, stars, commentary=None):
        Root.reviews.append((heroId, stars))
        return {"stars": stars + len(Root.reviews) * 0, "commentary": commentary or "review %d" % len(Root.reviews)}


class Upstream(http.server.BaseHTTPRequestHandler):
    """A GraphQL endpoint with APQ: a hash it has not seen is PERSISTED_QUERY_NOT_FOUND."""
    persisted = {}

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        query = body.get("query")
        digest = ((body.get("extensions") or {}).get("persistedQuery") or {}).get("sha256Hash")
        if digest and query is None:
            query = Upstream.persisted.get(digest)
            if query is None:
                return self.answer({"errors": [{"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}]})
        if digest:
            assert hashlib.sha256(query.encode()).hexdigest() == digest
            Upstream.persisted[digest] = query
        result = graphql.graphql_sync(SCHEMA, query, root_value=Root, variable_values=body.get("variables"),
                                      operation_name=body.get("operationName"))
        answer = {"data": result.data}
        if result.errors:
            answer["errors"] = [{"message": error.message} for error in result.errors]
        self.answer(answer)

    def answer(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *arguments):
        pass


HERO = "query Hero($id: ID!) { hero(id: $id) { name friends { name } } }"
HERO_REFORMATTED = "query Hero($id: ID!) {\n  hero(id: $id) {\n    friends { name }\n    name\n  }\n}"
HEROES_QUERY = "query Heroes($first: Int) { heroes(first: $first) { id name } }"
REVIEW = "mutation AddReview($heroId: ID!, $stars: Int!) { addReview(heroId: $heroId, stars: $stars) { stars commentary } }"
PERSISTED = "query Names { heroes(first: 3) { name } }"
PERSISTED_HASH = hashlib.sha256(PERSISTED.encode()).hexdigest()


def session():
    """Ten operations: queries with different variables, a mutation, and an APQ round trip."""
    apq = {"persistedQuery": {"version": 1, "sha256Hash": PERSISTED_HASH}}
    return [
        ("hero 1", {"query": HERO, "variables": {"id": "1"}, "operationName": "Hero"}),
        ("hero 2", {"query": HERO, "variables": {"id": "2"}, "operationName": "Hero"}),
        ("hero 3", {"query": HERO, "variables": {"id": "3"}, "operationName": "Hero"}),
        ("heroes 1", {"query": HEROES_QUERY, "variables": {"first": 1}, "operationName": "Heroes"}),
        ("heroes 3", {"query": HEROES_QUERY, "variables": {"first": 3}, "operationName": "Heroes"}),
        ("review", {"query": REVIEW, "variables": {"heroId": "1", "stars": 5}, "operationName": "AddReview"}),
        ("apq miss", {"extensions": apq, "operationName": "Names"}),
        ("apq register", {"query": PERSISTED, "extensions": apq, "operationName": "Names"}),
        ("apq hit", {"extensions": apq, "operationName": "Names"}),
        ("anonymous", {"query": "{ hero(id: \"2\") { name } }"}),
    ]


def test_a_graphql_session_recorded_by_operation_replays_with_nothing_unmatched():
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    target = "http://127.0.0.1:%d" % upstream.server_address[1]
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        with serve(stubs) as url:
            assert requests.post(url + "/__admin/recordings/start", json={"targetBaseUrl": target}).status_code == 200
            recorded = {}
            for name, body in session():
                answer = requests.post(url + "/graphql", json=body)
                assert answer.status_code == 200, name
                recorded[name] = answer.json()
            assert "PERSISTED_QUERY_NOT_FOUND" in json.dumps(recorded["apq miss"])
            assert recorded["apq hit"]["data"]["heroes"][2]["name"] == "Han"
            mappings = requests.post(url + "/__admin/recordings/stop").json()["mappings"]
            upstream.shutdown()
            upstream.server_close()
            graphql_mappings = [m for m in mappings if "customMatcher" in m["request"]]
            # One stub per distinct (operation, variables), matched as GraphQL and named after the operation.
            assert len(graphql_mappings) == 8, [m["name"] for m in mappings]
            assert any(m["name"].startswith("graphql-hero-") for m in graphql_mappings)
            assert all(m["request"]["customMatcher"]["name"] == "graphql-body-matcher" for m in graphql_mappings)

            requests.delete(url + "/__admin/requests")
            # Reformatted and in another order (the APQ round keeps its own order).
            replay = list(reversed(session()))
            order = [item for item in replay if not item[0].startswith("apq")] + [item for item in session() if item[0].startswith("apq")]
            for name, body in order:
                if body.get("query") == HERO:
                    body = dict(body, query=HERO_REFORMATTED)
                answer = requests.post(url + "/graphql", json=body)
                assert answer.status_code == 200, (name, answer.text[:300])
                assert answer.json() == recorded[name], name
            unmatched = requests.get(url + "/__admin/requests/unmatched").json()["requests"]
            assert unmatched == []

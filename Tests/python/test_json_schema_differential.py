"""matchesJsonSchema against Python's `jsonschema` (the reference validator of the JSON Schema
community): every schema below, under each draft WireMock 3 names (V4, V6, V7, V201909, V202012),
is a stub; every instance is POSTed to it; the stub must answer exactly when `jsonschema`'s
validator of that draft says the instance is valid. The schemas cover every assertion keyword of
the five drafts, including keywords a draft does not have (which it ignores). The agreement is
printed and docs/stubs.md reports it."""
import json
import os
import tempfile

import jsonschema
import pytest
import requests

from understudy_server import serve

VALIDATORS = {
    "V4": jsonschema.Draft4Validator,
    "V6": jsonschema.Draft6Validator,
    "V7": jsonschema.Draft7Validator,
    "V201909": jsonschema.Draft201909Validator,
    "V202012": jsonschema.Draft202012Validator,
}

NUMBERS = [0, 1, 1.0, 1.5, -3, 10, 10.5, 2.5, "1", None]
CASES = [
    # type, enum, const
    ({"type": "integer"}, NUMBERS + [True]),
    ({"type": "number"}, NUMBERS + [True]),
    ({"type": ["string", "null"]}, ["a", None, 1, []]),
    ({"type": "object"}, [{}, [], "x", None]),
    ({"type": "array"}, [[], {}, "[]"]),
    ({"type": "boolean"}, [True, False, 0, "true"]),
    ({"enum": [1, "a", [1, 2], {"k": 1}, None]}, [1, 1.0, "a", [1, 2], [2, 1], {"k": 1}, {"k": 1.0}, None, "b", 2]),
    ({"const": {"a": [1, 2]}}, [{"a": [1, 2]}, {"a": [1.0, 2]}, {"a": [2, 1]}, {"a": [1, 2], "b": 1}, 1]),
    # numbers
    ({"multipleOf": 3}, [0, 3, 9, 4, 3.0, 4.5, "9"]),
    ({"multipleOf": 0.5}, [1, 1.5, 1.25, 7]),
    ({"maximum": 10, "minimum": 1}, [1, 10, 0, 11, 10.5, 0.99, "20"]),
    ({"maximum": 10, "exclusiveMaximum": True, "minimum": 1, "exclusiveMinimum": True}, [1, 2, 10, 9.99, 1.01]),
    ({"exclusiveMaximum": 10, "exclusiveMinimum": 1}, [1, 2, 10, 9.99, 1.01, 0]),
    # strings
    ({"maxLength": 3, "minLength": 2}, ["a", "ab", "abc", "abcd", "é€", "😀😀", "😀", 12345]),
    ({"pattern": "^[a-z]+[0-9]*$"}, ["abc", "abc12", "12abc", "", 5]),
    ({"pattern": "b"}, ["abc", "xyz", "B"]),
    ({"format": "email"}, ["not an email", "a@b.c", 3]),
    # arrays
    ({"items": {"type": "integer"}}, [[1, 2], [1, "2"], [], "x"]),
    ({"items": [{"type": "integer"}, {"type": "string"}]}, [[1, "a"], [1, "a", None], ["a", 1], [1]]),
    ({"items": [{"type": "integer"}], "additionalItems": False}, [[1], [1, 2], []]),
    ({"items": [{"type": "integer"}], "additionalItems": {"type": "string"}}, [[1, "a"], [1, 2]]),
    ({"prefixItems": [{"type": "integer"}], "items": False}, [[1], [1, 2], ["a"]]),
    ({"prefixItems": [{"type": "integer"}], "items": {"type": "string"}}, [[1, "a"], [1, 2], []]),
    ({"maxItems": 2, "minItems": 1}, [[], [1], [1, 2], [1, 2, 3]]),
    ({"uniqueItems": True}, [[1, 2], [1, 1], [1, 1.0], [{"a": 1}, {"a": 1}], [[1], [1]], [0, False], [1, True]]),
    ({"contains": {"type": "string"}}, [[1, "a"], [1, 2], []]),
    ({"contains": {"type": "string"}, "minContains": 2, "maxContains": 3}, [["a"], ["a", "b"], ["a", "b", "c", "d"], [1, "a", "b"]]),
    ({"contains": {"type": "string"}, "minContains": 0}, [[], [1]]),
    # objects
    ({"maxProperties": 2, "minProperties": 1}, [{}, {"a": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}]),
    ({"required": ["a", "b"]}, [{"a": 1, "b": 2}, {"a": 1}, {}, [1]]),
    ({"properties": {"a": {"type": "integer"}}, "additionalProperties": False}, [{"a": 1}, {"a": "x"}, {"b": 1}, {}]),
    ({"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
     [{"x-a": "s", "n": 1}, {"x-a": 1}, {"n": "s"}]),
    ({"properties": {"a": {}}, "patternProperties": {"a": {"type": "integer"}}}, [{"a": 1}, {"a": "s"}, {"ba": "s"}]),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, [{"abc": 1}, {"aB": 1}, {}]),
    ({"propertyNames": {"maxLength": 2}}, [{"ab": 1}, {"abc": 1}]),
    ({"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}, [{"a": 1, "b": 1}, {"a": 1}, {"c": 1}, {"c": 1, "d": 1}, {}]),
    ({"dependentRequired": {"a": ["b"]}}, [{"a": 1, "b": 1}, {"a": 1}, {}]),
    ({"dependentSchemas": {"a": {"required": ["b"]}}}, [{"a": 1, "b": 1}, {"a": 1}, {}]),
    # combinators and conditions
    ({"allOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 2, "2"]),
    ({"anyOf": [{"type": "integer"}, {"minLength": 2}]}, [1, "ab", "a", 1.5]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 3, 2.5, 1.5]),
    ({"not": {"type": "string"}}, [1, "a"]),
    ({"if": {"properties": {"kind": {"const": "card"}}, "required": ["kind"]}, "then": {"required": ["number"]},
      "else": {"required": ["iban"]}},
     [{"kind": "card", "number": "4111"}, {"kind": "card"}, {"kind": "bank", "iban": "x"}, {"kind": "bank"}, {}]),
    ({"then": {"required": ["x"]}}, [{}]),
    # references
    ({"definitions": {"positive": {"type": "integer", "minimum": 1}}, "properties": {"n": {"$ref": "#/definitions/positive"}}},
     [{"n": 1}, {"n": 0}, {"n": "1"}]),
    ({"$defs": {"positive": {"type": "integer", "minimum": 1}}, "items": {"$ref": "#/$defs/positive"}}, [[1, 2], [0], []]),
    ({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2}, ["ab", "abc", 1]),
    ({"properties": {"tree": {"$ref": "#/$defs/node"}},
      "$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                         "required": ["children"]}}},
     [{"tree": {"children": [{"children": []}]}}, {"tree": {"children": [{}]}}]),
    ({"$defs": {"name": {"$anchor": "name", "type": "string"}}, "properties": {"n": {"$ref": "#name"}}}, [{"n": "a"}, {"n": 1}]),
    ({"definitions": {"a~b": {"type": "integer"}, "c/d": {"type": "string"}},
      "properties": {"x": {"$ref": "#/definitions/a~0b"}, "y": {"$ref": "#/definitions/c~1d"}}},
     [{"x": 1, "y": "s"}, {"x": "s"}, {"y": 1}]),
    # unevaluated
    ({"properties": {"a": {}}, "unevaluatedProperties": False}, [{"a": 1}, {"a": 1, "b": 2}]),
    ({"allOf": [{"properties": {"a": {}}}], "properties": {"b": {}}, "unevaluatedProperties": False},
     [{"a": 1, "b": 1}, {"a": 1, "c": 1}]),
    ({"anyOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False},
     [{"a": 1}, {"a": "x"}, {"b": 1}, {"a": 1, "b": 1, "c": 1}]),
    ({"if": {"properties": {"a": {"const": 1}}}, "then": {"properties": {"b": {}}}, "unevaluatedProperties": False},
     [{"a": 1, "b": 2}, {"a": 2, "b": 2}, {"a": 1}]),
    ({"prefixItems": [{"type": "integer"}], "unevaluatedItems": False}, [[1], [1, 2], []]),
    ({"items": [{"type": "integer"}], "unevaluatedItems": False}, [[1], [1, 2]]),
    ({"contains": {"type": "string"}, "unevaluatedItems": {"type": "integer"}}, [["a", 1], ["a", True], [1]]),
    ({"$ref": "#/$defs/a", "$defs": {"a": {"properties": {"x": {}}}}, "unevaluatedProperties": False}, [{"x": 1}, {"y": 1}]),
    # boolean schemas
    ({"properties": {"yes": True, "no": False}}, [{"yes": 1}, {"no": 1}, {}]),
    ({"items": False}, [[], [1]]),
]


@pytest.fixture(scope="module")
def server():
    with tempfile.TemporaryDirectory() as stubs:
        os.makedirs(os.path.join(stubs, "mappings"))
        with serve(stubs, "--no-watch") as url:
            yield url


def test_matches_json_schema_agrees_with_pythons_jsonschema(server):
    agree, disagreements, skipped = 0, [], 0
    for version, validator in VALIDATORS.items():
        for number, (schema, instances) in enumerate(CASES):
            try:
                validator.check_schema(schema)
            except jsonschema.SchemaError:
                skipped += 1  # not a schema of this draft (boolean schemas before draft 6)
                continue
            path = "/schema/%s/%d" % (version, number)
            mapping = {"request": {"method": "POST", "urlPath": path,
                                   "bodyPatterns": [{"matchesJsonSchema": json.dumps(schema), "schemaVersion": version}]},
                       "response": {"status": 200}}
            added = requests.post(server + "/__admin/mappings", json=mapping, timeout=10)
            try:
                validator(schema).is_valid(instances[0])
            except Exception:  # referencing's errors: the $ref does not resolve in this draft
                # A $ref this draft cannot resolve (an $anchor before 2019-09): as in WireMock 3.13, the
                # mapping loads and nothing matches it.
                unmatched = requests.post(server + path, data=json.dumps(instances[0]), timeout=10).status_code == 404
                if added.status_code == 201 and unmatched:
                    agree += 1
                else:
                    disagreements.append((version, schema, "(loading)", "unresolvable"))
                continue
            assert added.status_code == 201, (version, schema, added.text)
            for instance in instances:
                expected = validator(schema).is_valid(instance)
                # WireMock's MatchesJsonSchemaPattern tries a number, boolean or null that fails again
                # as a JSON string of its text (so 12 passes {"type": "string"}).
                if not expected and (instance is None or isinstance(instance, (bool, int, float))):
                    expected = validator(schema).is_valid(json.dumps(instance))
                got = requests.post(server + path, data=json.dumps(instance), timeout=10).status_code == 200
                if got == expected:
                    agree += 1
                else:
                    disagreements.append((version, schema, instance, expected))
    total = agree + len(disagreements)
    print("matchesJsonSchema agrees with jsonschema %s on %d of %d cases (%d schema-draft pairs not valid schemas of their draft)"
          % (jsonschema.__version__, agree, total, skipped))
    assert not disagreements, "\n".join("%s %s on %s: jsonschema says %s" % d for d in disagreements)
    assert total > 1000


def test_a_schema_as_json_a_non_json_value_and_bad_schemas(server):
    # WireMock 3 takes the schema as JSON too; a value is read as JSON (a string in quotes), and one
    # that is not JSON as the string it is (3.13's MatchesJsonSchemaPattern).
    mapping = {"request": {"method": "GET", "urlPath": "/q", "queryParameters": {
        "n": {"matchesJsonSchema": {"type": "integer", "minimum": 10}},
        "s": {"matchesJsonSchema": {"type": "string", "pattern": "^[a-z]+$"}}}}, "response": {"status": 200}}
    assert requests.post(server + "/__admin/mappings", json=mapping, timeout=10).status_code == 201
    assert requests.get(server + '/q?n=12&s="abc"', timeout=10).status_code == 200
    assert requests.get(server + '/q?n=9&s="abc"', timeout=10).status_code == 404
    assert requests.get(server + '/q?n=12&s="ABC"', timeout=10).status_code == 404
    assert requests.get(server + "/q?n=12&s=abc", timeout=10).status_code == 200, "abc is not JSON: read as the string abc"
    assert requests.get(server + "/q?n=12&s=ABC", timeout=10).status_code == 404
    for pattern, field in [
        ({"matchesJsonSchema": "{not json"}, "matchesJsonSchema: not JSON"),
        ({"matchesJsonSchema": {}, "schemaVersion": "V5"}, "'V5' is not one of V4, V6, V7, V201909, V202012"),
    ]:
        answer = requests.post(server + "/__admin/mappings", timeout=10,
                               json={"request": {"urlPath": "/bad", "bodyPatterns": [pattern]}, "response": {}})
        assert answer.status_code == 422 and field in answer.text, (pattern, answer.text)
    # JSON that is no schema WireMock's validator reads loads, and nothing matches it (3.13's
    # invalidJsonSchemaNeverMatches); Understudy also loads it with a warning naming why.
    for number, schema in enumerate([{"$ref": "https://example.com/schema.json"}, {"$ref": "#/$defs/missing"},
                                     {"pattern": "(["}, [1], {"id": 1, "name": "alice"}]):
        path = "/bad/%d" % number
        answer = requests.post(server + "/__admin/mappings", timeout=10,
                               json={"request": {"urlPath": path, "bodyPatterns": [{"matchesJsonSchema": schema}]}, "response": {}})
        assert answer.status_code == 201, (schema, answer.text)
        for body in ['{"id": 1, "name": "alice"}', '"text"', "[1]", "12"]:
            assert requests.post(server + path, data=body, timeout=10).status_code == 404, (schema, body)

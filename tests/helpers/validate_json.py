#!/usr/bin/env python3
"""validate_json.py SCHEMA_DIR SCHEMA_NAME [FILE]  (FILE default: stdin)

Validates one JSON document against SCHEMA_DIR/SCHEMA_NAME; the schema's
relative $ref names (defs.json, config-linux.json, ...) resolve inside
SCHEMA_DIR.  Prints each error and exits 1 when the document is invalid.
"""
import json
import os
import sys

import jsonschema


def load(path):
    with open(path) as f:
        return json.load(f)


def main(argv):
    if len(argv) not in (3, 4):
        raise SystemExit(__doc__)
    sdir = os.path.abspath(argv[1])
    schema = load(os.path.join(sdir, argv[2]))
    doc = json.load(open(argv[3]) if len(argv) == 4 else sys.stdin)
    base = "file://" + sdir + "/"
    cls = jsonschema.validators.validator_for(schema)
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT4

        def retrieve(uri):
            return Resource.from_contents(load(uri[len("file://"):]),
                                          default_specification=DRAFT4)
        # start from the schema file's own URI so relative refs resolve in SCHEMA_DIR
        validator = cls({"$ref": base + argv[2]},
                        registry=Registry(retrieve=retrieve))
    except ImportError:  # Debian 12: jsonschema 4.10
        resolver = jsonschema.RefResolver(base + argv[2], schema)
        validator = cls(schema, resolver=resolver)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s" % ("/".join(str(p) for p in e.path) or "(root)", e.message))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# SPDX-License-Identifier: MIT
"""python -m quantaudit COMMAND PATH... [OPTIONS]: the JSON report through
the library (the same document the quantaudit binary writes)."""
import json
import sys

import quantaudit


def main(argv):
    if len(argv) < 2:
        print("usage: python -m quantaudit COMMAND PATH... [-- OPTIONS]",
              file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    paths, options = (rest[:rest.index("--")], rest[rest.index("--") + 1:]) \
        if "--" in rest else (rest, [])
    try:
        code, report = quantaudit.run(command, paths, options)
    except quantaudit.QuantauditError as e:
        print(f"quantaudit: {e}", file=sys.stderr)
        return e.exit_code or 2
    json.dump(report, sys.stdout, indent=2)
    print()
    return code


sys.exit(main(sys.argv[1:]))

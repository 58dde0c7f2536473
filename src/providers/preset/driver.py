# corpus's Python worker: runs one preset's parse(pdf, pages, workdir) for one PDF after
# another, in the preset's own environment (docs/presets.md, "The worker").
#
# Protocol, one JSON object per line each way:
#   after the preset's code is loaded (its imports done): {"ready": true}
#                                   or, when loading fails: {"ready": false, "error": "..."}
#   corpus -> worker: {"pdf": PATH, "pages": null | [1-based page, ...], "workdir": DIR}
#   worker -> corpus: {"ok": true, "output": TEXT, "ms": MS, "cpu_ms": MS}
#                  or {"ok": false, "error": "Type: message", "trace": "...", "ms": MS, "cpu_ms": MS}
# cpu_ms is the CPU time of this process and of the children it waited for (a parser that runs
# a command), user + system.
# Parsers print to stdout freely: the protocol runs on a private copy of the original
# stdout, and file descriptor 1 is pointed at stderr before the preset's code is loaded.
import json
import os
import resource
import sys
import time
import traceback


def cpu_seconds():
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main():
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(obj):
        proto.write(json.dumps(obj, ensure_ascii=False) + "\n")
        proto.flush()

    path = sys.argv[1]
    # The worker's own folder is not a place to import packages from.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        scope = {"__name__": "corpus_preset", "__file__": path}
        exec(compile(source, path, "exec"), scope)
        parse = scope["parse"]
    except BaseException as e:  # noqa: BLE001 - reported to corpus, which stops the run
        send({"ready": False, "error": "%s: %s" % (type(e).__name__, e),
              "trace": traceback.format_exc()[-3000:]})
        return
    send({"ready": True})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        t0 = time.perf_counter()
        c0 = cpu_seconds()
        try:
            out = parse(req["pdf"], req["pages"], req["workdir"])
            if isinstance(out, (bytes, bytearray)):
                out = bytes(out).decode("utf-8")
            elif not isinstance(out, str):
                out = json.dumps(out, ensure_ascii=False)
            reply = {"ok": True, "output": out}
        except Exception as e:  # noqa: BLE001 - one document's failure, recorded by corpus
            reply = {"ok": False, "error": "%s: %s" % (type(e).__name__, e),
                     "trace": traceback.format_exc()[-3000:]}
        reply["ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        reply["cpu_ms"] = round((cpu_seconds() - c0) * 1000.0, 3)
        send(reply)


main()

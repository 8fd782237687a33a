# SPDX-License-Identifier: MIT
"""A stdout callback for the Ansible test: the whole run as one JSON document.

ansible-core (what scripts/bootstrap installs) ships no `json` callback (that one
lives in the community.general collection), so the test brings this one.  The
document has the shape the test reads: {"plays": [{"play": {...}, "tasks": [{"task":
{"name": ...}, "hosts": {HOST: RESULT}}]}], "stats": {HOST: {"changed": N, ...}}}.
"""
import json

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: cudaup_json
    type: stdout
    short_description: the run as one JSON document (cudaup's tests)
    description: the run as one JSON document, for cudaup's tests
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "cudaup_json"

    def __init__(self):
        super().__init__()
        self.plays = []

    def v2_playbook_on_play_start(self, play):
        self.plays.append({"play": {"name": play.get_name()}, "tasks": []})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.plays[-1]["tasks"].append({"task": {"name": task.get_name()}, "hosts": {}})

    def v2_playbook_on_handler_task_start(self, task):
        self.v2_playbook_on_task_start(task, False)

    def _record(self, result, **extra):
        res = dict(result._result)
        res.update(extra)
        self.plays[-1]["tasks"][-1]["hosts"][result._host.get_name()] = self._clean(res)

    @staticmethod
    def _clean(res):
        return json.loads(json.dumps(res, default=str))

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True, failed=True)

    def v2_playbook_on_stats(self, stats):
        out = {}
        for h in sorted(stats.processed.keys()):
            s = stats.summarize(h)
            out[h] = {"changed": s["changed"], "failures": s["failures"], "ok": s["ok"],
                      "skipped": s["skipped"], "unreachable": s["unreachable"]}
        self._display.display(json.dumps({"plays": self.plays, "stats": out}, indent=1))

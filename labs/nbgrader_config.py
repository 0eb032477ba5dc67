"""nbgrader settings for the rmqlab labs: copy this file into your nbgrader course directory.

Each answer cell reads ``answer_1 = ...  # ← your prediction`` above its ``### BEGIN SOLUTION`` region,
so the region is replaced by nothing instead of nbgrader's default ``raise NotImplementedError()``
(``labs/make_student.py`` uses the same stub for ``make student``).
"""

c = get_config()  # noqa: F821 — nbgrader runs this file with get_config defined
c.ClearSolutions.code_stub = {"python": ""}

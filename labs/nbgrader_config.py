"""nbgrader settings for the rmqlab labs: the course directory's ``nbgrader_config.py`` (copy it there).

On a hub, ``deploy/nbgrader/global_nbgrader_config.py`` sets the course id and the exchange for everyone; this file
is the teacher's course directory config and says how the labs are released and graded:

* each answer cell reads ``answer_1 = ...  # ← your prediction`` above its ``### BEGIN SOLUTION`` region, so the
  region is replaced by nothing instead of nbgrader's default ``raise NotImplementedError()``
  (``labs/make_student.py`` does the same for ``make student``);
* autograding runs each submission in a kernel that cannot see the teacher's home, the course directory or the
  exchange (:mod:`rmqlab.course.sandbox`; :class:`rmqlab.course.sandboxed_execute.SandboxedExecute` in place of
  nbgrader's ``Execute``; where Linux forbids user namespaces it stops with a message saying what to change), then
  checks each answer cell *as submitted* outside the student's kernel
  (:func:`rmqlab.course.autograde.check_predictions`: code in a notebook cannot patch its way to points), and
  keeps no widget state in the autograded copy (:func:`rmqlab.course.autograde.drop_widget_state`).
"""

import os

c = get_config()  # noqa: F821 — nbgrader runs this file with get_config defined
c.ClearSolutions.code_stub = {"python": ""}
c.CourseDirectory.course_id = os.environ.get("RMQLAB_COURSE_ID", "rmqlab")
c.Execute.store_widget_state = False
c.Autograde.autograde_preprocessors = [
    "rmqlab.course.sandboxed_execute.SandboxedExecute",  # nbgrader's Execute, the kernel in the sandbox
    "rmqlab.course.autograde.check_predictions",
    "rmqlab.course.autograde.drop_widget_state",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

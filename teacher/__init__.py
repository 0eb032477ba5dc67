"""The teacher's side of the course: the plain explanations and hints of every exercise, and the step that seals
them into the bank students get (``python -m teacher.compile``).

Never installed (``pyproject.toml`` lists only ``rmqlab`` and ``widgets``), never in a student copy, a Binder or
hub image (``postBuild`` and ``deploy/image/appendix.Dockerfile`` remove it), never in the JupyterLite site.
"""

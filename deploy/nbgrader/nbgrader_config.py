"""nbgrader settings every user of a hub shares: the course id and the exchange (``etc/jupyter/nbgrader_config.py``
of the users' environment; the TLJH plugin and the hub image put it there).

The exchange is a folder every student and the teacher can write to: ``nbgrader release_assignment`` puts a lab
there, students fetch and submit through the Assignments list, ``nbgrader collect`` brings submissions into the
teacher's course directory. On one machine (TLJH) it is a local folder; on Kubernetes (Zero to JupyterHub) it must
be a volume mounted into every user's pod (docs/classroom.md). ``RMQLAB_COURSE_ID`` and ``RMQLAB_EXCHANGE`` change
the defaults.
"""

import os

c = get_config()  # noqa: F821 — nbgrader runs this file with get_config defined
c.CourseDirectory.course_id = os.environ.get("RMQLAB_COURSE_ID", "rmqlab")
c.Exchange.root = os.environ.get("RMQLAB_EXCHANGE", "/srv/nbgrader/exchange")

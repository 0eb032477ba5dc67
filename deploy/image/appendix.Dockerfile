# Appended by deploy/build-image.sh to the Dockerfile repo2docker writes for this repository (its --appendix).
# repo2docker has already installed environment.yml (the [lab] extra) into ${NB_PYTHON_PREFIX} and run postBuild:
# labs/ holds the student copy (no solutions, no hidden tests), teacher/ and .git are gone. The repository is in
# ${REPO_DIR} (/srv/rmqlab, outside the home folder the hub mounts over /home/jovyan).
# 1. nbgrader ([teacher]) for the Assignments list (fetch, submit), the students' labs in student-labs/ (the Chinese
#    ones in student-labs/zh/) for the seed hook, a hub student's Jupyter (Assignments only: no formgrader, Create
#    Assignment or Validate), and the course's exchange settings for everyone (deploy/nbgrader/nbgrader_config.py).
RUN ${NB_PYTHON_PREFIX}/bin/python -m pip install --no-cache-dir -c constraints.txt -e ".[lab,teacher]" \
 && ${NB_PYTHON_PREFIX}/bin/python labs/make_student.py labs student-labs \
 && ${NB_PYTHON_PREFIX}/bin/python labs/make_student.py labs/zh student-labs/zh \
 && ${NB_PYTHON_PREFIX}/bin/python deploy/jupyter_roles.py hub-student ${NB_PYTHON_PREFIX}/etc/jupyter \
 && cp deploy/nbgrader/nbgrader_config.py ${NB_PYTHON_PREFIX}/etc/jupyter/nbgrader_config.py

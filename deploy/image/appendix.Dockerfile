# Appended by deploy/build-image.sh to the Dockerfile repo2docker writes for this repository (its --appendix).
# repo2docker has already installed environment.yml (the [lab] extra) into ${NB_PYTHON_PREFIX}; the repository
# is in ${REPO_DIR} (/srv/rmqlab, outside the home folder the hub mounts over /home/jovyan).
# 1. nbgrader ([teacher]) and the student copy of the labs: solutions and hidden tests out, outputs cleared.
RUN ${NB_PYTHON_PREFIX}/bin/python -m pip install --no-cache-dir -c constraints.txt -e ".[lab,teacher]" \
 && ${NB_PYTHON_PREFIX}/bin/python labs/make_student.py labs student-labs
# 2. Students must not find the answers in the image: the solved labs and the git history are readable by
#    root only (the package itself, rmqlab/ and widgets/, stays readable: it is what the kernels import).
USER root
RUN rm -rf ${REPO_DIR}/.git && chmod -R go-rwx ${REPO_DIR}/labs
USER ${NB_USER}

"""What each lab exercise says after a prediction: its explanation, near-miss hints, unit and points.

Kept out of the notebooks on purpose: the explanation of an exercise states its answer, so it must not
be in the student's notebook (source or output) before the student has predicted. A lab's check cell
names only the id (``check("03.1", answer_1, measured)``); :func:`rmqlab.course.exercises.check` looks the
rest up here. ``tests/test_student_copy.py`` checks that no id is missing or unused, and that no hint
gives its answer away.
"""

from __future__ import annotations

from .answers import Exercise
from .bank_queues import QUEUE_EXERCISES, TOUR_EXERCISES
from .bank_retry import RETRY_EXERCISES

EXERCISES: tuple[Exercise, ...] = (*TOUR_EXERCISES, *RETRY_EXERCISES, *QUEUE_EXERCISES)
"""Every exercise, lab by lab: 00 (the tour), the retry labs 01–04b, the queue labs 05–09."""

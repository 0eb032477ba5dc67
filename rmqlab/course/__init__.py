"""The labs' exercises: what a prediction means, how it is checked against the sealed bank and scored, and how the
autograder judges it.

Not part of the engine: nothing in ``rmqlab``'s RocketMQ packages imports it. Nothing here states an answer or an
explanation in plain text (``bank.json`` holds salted tags and sealed texts, :mod:`rmqlab.course.sealed`); the
plain texts are the teacher's, in ``teacher/`` at the repository's root.
"""

"""The labs' exercises: what a prediction means, how it is checked and scored, and what each exercise says after one.

Not part of the engine: nothing in ``rmqlab``'s RocketMQ packages imports it.
"""

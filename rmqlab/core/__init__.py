"""The simulation's ground: one virtual clock and event heap (``scheduler``), Java's blocking threads as generator
processes (``process``, ``thread_pool``, ``scheduled_executor``), the append-only trace every view reads (``trace``),
what a client or broker is handed by the Lab that builds it (``context``), durations, option checks and the error tree.

RocketMQ has no such module: this is what the JVM and ``java.util.concurrent`` give the Java code for free.
"""

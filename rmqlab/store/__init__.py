"""A broker's storage, as RocketMQ 4.9.7's ``store`` module (``store/src/main/java/org/apache/rocketmq/store/``): the
``CommitLog`` and its ``ConsumeQueue``s, ``DefaultMessageStore``, ``PutMessageStatus``, the ``ScheduleMessageService``
that holds delayed messages and retries (``store/schedule/``), and ``CleanCommitLogService``'s retention.
"""

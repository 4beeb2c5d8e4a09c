"""Every message a person sees, built in one place per screen family from records and
plain values, ready to send: ``lobby``, ``status`` (a round's status and the channel's
notices), ``builder`` (the hand builder, its locked DM and the foul confirmation),
``showdown`` (showdowns and final standings), ``review`` (the coach), ``board``
(leaderboard, stats, rules, settings) and ``history`` (history pages and replays).
Callers send a :class:`~cogs.screens.base.Screen` as it is and never change it."""

"""Value changes, a third held-out set: written after the rules of its session were built (a
change by a part of an hour read as minutes; a noun of an act read as its verb, "the flight" /
"we fly"; a change looked up by the names of the thing it changes), before either revision was
run on it.

The semantics are those of `value_changes_set`. The pairs are new subjects in new wording, most
of them told with a noun of the act where the first statement has the verb (or the other way
round), or changed by a part of an hour; every pair is in the `holdout 3` half.
"""

from __future__ import annotations

from value_changes_set import Change, Distinct

HALF = "holdout 3"

THIRD_CHANGES: tuple[Change, ...] = (
    Change("time", "relative", HALF,
           "My dentist appointment is at 2:15 pm.", "The dentist appointment got moved half an hour earlier.",
           "What time is my dentist appointment?", "2:15 pm", "1:45 pm"),
    Change("duration", "relative", HALF,
           "Our Saturday hike is 90 minutes.", "The Saturday hike is now three quarters of an hour shorter.",
           "How long is our Saturday hike?", "90 minutes", "45 minutes"),
    Change("time", "relative", HALF,
           "The overnight bus to Porto leaves at 22:10.",
           "The Porto bus departure has been put back by a quarter of an hour.",
           "When does the bus to Porto leave?", "22:10", "22:25"),
    Change("date", "relative", HALF,
           "We arrive in Krakow on 9 May.", "Our Krakow arrival slipped by a day.",
           "When do we arrive in Krakow?", "9 May", "10 May"),
    Change("price", "relative", HALF,
           "We pay 1,150 euros rent each month.", "From April the monthly rent payment rises by 30 euros.",
           "How much rent do we pay each month?", "1,150 euros", "1,180 euros"),
    Change("time", "relative", HALF,
           "Pilates starts at 6:30 pm.", "Pilates was brought forward an hour and a half.",
           "What time does Pilates start?", "6:30 pm", "5 pm"),
    Change("day", "move", HALF,
           "The veg box is delivered on Thursdays.", "The veg box delivery has moved to Tuesdays.",
           "When is the veg box delivered?", "Thursdays", "Tuesdays"),
    Change("person", "move", HALF,
           "Our neighbour Joan collects the post while we're away.",
           "Post collection while we're away has been handed over to Omar.",
           "Who collects the post while we're away?", "Joan", "Omar"),
    Change("place", "replace", HALF,
           "We check in at the Harbour Hotel.", "Check-in is at the Quay Hotel instead of the Harbour Hotel.",
           "Where do we check in?", "Harbour Hotel", "Quay Hotel"),
    Change("time", "restate", HALF,
           "The school bus departs at 7:50.", "The school bus departure time is 7:35 now.",
           "When does the school bus depart?", "7:50", "7:35"),
    Change("frequency", "move", HALF,
           "I water the tomatoes every day.", "The tomato watering has been cut back to every other day.",
           "How often do I water the tomatoes?", "every day", "every other day"),
    Change("date", "restate", HALF,
           "Our flight to Tromso is on 2 February.", "We now fly to Tromso on 5 February.",
           "When is our flight to Tromso?", "2 February", "5 February"),
)

THIRD_DISTINCT: tuple[Distinct, ...] = (
    Distinct("time", HALF,
             "The Lisbon flight leaves at 9:40.", "The Madrid flight leaves at 13:05.",
             "When does the Lisbon flight leave?", "When does the Madrid flight leave?", "9:40", "13:05"),
    Distinct("date", HALF,
             "The rent payment is due on 1 March.", "The council tax payment is due on 15 March.",
             "When is the rent payment due?", "When is the council tax payment due?", "1 March", "15 March"),
    Distinct("time", HALF,
             "The morning delivery arrives at 8 am.", "The evening delivery arrives at 6 pm.",
             "When does the morning delivery arrive?", "When does the evening delivery arrive?", "8 am", "6 pm"),
    Distinct("duration", HALF,
             "Our Saturday hike is 90 minutes.", "Our Sunday swim is 45 minutes.",
             "How long is our Saturday hike?", "How long is our Sunday swim?", "90 minutes", "45 minutes"),
)

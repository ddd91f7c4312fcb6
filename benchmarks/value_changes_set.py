"""Value changes: a fact told once, then a new value for it ten days later, and pairs that only look alike.

`CHANGES` are pairs where the later statement replaces the earlier one's value: asked `question`, a memory
should rank `new` first and mark `old` outdated. `DISTINCT` are pairs about different things (another
subject, another qualifier, another person, last year against this year, or a move of something else),
where both statements stay current and each question is answered by its own statement only.

Every change has a slot kind (what sort of value changes) and a form (how the change is said):
`restate` says the thing again with another value and no cue, `move` uses a verb of moving or adjusting,
`replace` a construction such as "instead of" or "as of today", and `relative` gives the new value
relative to the old one ("pushed back an hour"), so `new_value` is resolved against `old_value`.

Both sets are split in two halves, `tune` and `confirm`, alternating within each form (or kind of
distinct pair). The confirm half is phrased with verbs and constructions the tune half does not use,
so a rule written while looking at the tune half is checked on wording it has not seen.
"""

from __future__ import annotations

from dataclasses import dataclass

SLOT_KINDS = ("day", "date", "time", "duration", "frequency", "place", "room", "amount", "price", "person", "count")
FORMS = ("restate", "move", "replace", "relative")
HALVES = ("tune", "confirm")


@dataclass(frozen=True)
class Change:
    slot: str
    """One of `SLOT_KINDS`: the kind of value that changes."""
    form: str
    """One of `FORMS`."""
    half: str
    """One of `HALVES`."""
    old: str
    """The first statement."""
    new: str
    """The statement ten days later."""
    question: str
    """Asked afterwards: `new` answers it, `old` is outdated."""
    old_value: str
    """Exactly as written in `old`."""
    new_value: str
    """As written in `new`, except for form `relative`: the value resolved against `old_value`."""


@dataclass(frozen=True)
class Distinct:
    slot: str
    half: str
    a: str
    """The first statement."""
    b: str
    """Ten days later, about a different thing: both stay current."""
    question_a: str
    """Answered by `a` only."""
    question_b: str
    """Answered by `b` only."""
    value_a: str
    """As written in `a`."""
    value_b: str
    """As written in `b`."""


CHANGES: tuple[Change, ...] = (
    # ------------------------------------------------------------------ restate: said again, another value, no cue
    Change("day", "restate", "tune",
           "The pottery class is on Wednesday evenings.", "Pottery class is on Thursday evenings.",
           "When is the pottery class?", "Wednesday", "Thursday"),
    Change("place", "restate", "confirm",
           "Our team offsite is in Lisbon this spring.", "We're doing the team offsite in Porto this spring.",
           "Where is the team offsite this spring?", "Lisbon", "Porto"),
    Change("price", "restate", "tune",
           "My phone plan costs 25 euros a month.", "The phone plan costs 32 euros a month.",
           "How much does my phone plan cost?", "25 euros", "32 euros"),
    Change("person", "restate", "confirm",
           "Mr. Okafor teaches my son's violin lessons.", "My son's violin teacher is Ms. Lindqvist.",
           "Who teaches my son's violin lessons?", "Mr. Okafor", "Ms. Lindqvist"),
    Change("time", "restate", "tune",
           "My dentist appointment is at 2:15 pm.", "My dentist appointment is at 3:45 pm.",
           "What time is my dentist appointment?", "2:15 pm", "3:45 pm"),
    Change("count", "restate", "confirm",
           "Eight people are coming to the book club dinner.", "For the book club dinner we'll be twelve.",
           "How many people are coming to the book club dinner?", "Eight", "twelve"),
    Change("duration", "restate", "tune",
           "Each physiotherapy session lasts 45 minutes.", "Physiotherapy sessions last 60 minutes.",
           "How long is a physiotherapy session?", "45 minutes", "60 minutes"),
    Change("room", "restate", "confirm",
           "We're staying in room 412 at the Hotel Ambra.", "Our room at the Hotel Ambra is number 518.",
           "Which room are we in at the Hotel Ambra?", "room 412", "518"),
    Change("amount", "restate", "tune",
           "My monthly grocery budget is 400 euros.", "The grocery budget is 450 euros a month.",
           "What is my monthly grocery budget?", "400 euros", "450 euros"),
    Change("frequency", "restate", "confirm",
           "My therapy sessions are every two weeks.", "Therapy is once a week for me.",
           "How often are my therapy sessions?", "every two weeks", "once a week"),
    Change("date", "restate", "tune",
           "Our flight to Toronto is on March 3.", "Our flight to Toronto is on March 5.",
           "When is our flight to Toronto?", "March 3", "March 5"),
    Change("day", "restate", "confirm",
           "The sprint demo is on Tuesdays.", "Sprint demos happen Wednesdays.",
           "Which day is the sprint demo?", "Tuesdays", "Wednesdays"),
    Change("place", "restate", "tune",
           "The neighbourhood association meets at the library.",
           "The neighbourhood association meets at the community centre.",
           "Where does the neighbourhood association meet?", "the library", "the community centre"),
    Change("person", "restate", "confirm",
           "Dana is the contact for the catering order.", "For the catering order, talk to Felix.",
           "Who is the contact for the catering order?", "Dana", "Felix"),
    Change("time", "restate", "tune",
           "Our cat's vet appointment is at 4 pm.", "The vet appointment for our cat is at 4:40 pm.",
           "What time is our cat's vet appointment?", "4 pm", "4:40 pm"),
    # ------------------------------------------------------------------ move: a verb of moving or adjusting
    Change("day", "move", "tune",
           "The design review is on Fridays.", "The design review has been moved to Mondays.",
           "When is the design review?", "Fridays", "Mondays"),
    Change("day", "move", "confirm",
           "My haircut is booked for Saturday.", "The haircut has been postponed to Tuesday.",
           "When is my haircut?", "Saturday", "Tuesday"),
    Change("date", "move", "tune",
           "Our train to Edinburgh is on the 18th of May.",
           "The Edinburgh train was brought forward to the 16th of May.",
           "When is our train to Edinburgh?", "18th of May", "16th of May"),
    Change("date", "move", "confirm",
           "The product launch is set for June 12.", "Product launch has slipped to June 26.",
           "When is the product launch?", "June 12", "June 26"),
    Change("time", "move", "tune",
           "My blood test is at 8:00 am.", "My blood test got pushed to 9:15 am.",
           "What time is my blood test?", "8:00 am", "9:15 am"),
    Change("time", "move", "confirm",
           "Choir rehearsal starts at 7 pm.", "Choir rehearsal has been delayed until 7:45 pm.",
           "What time does choir rehearsal start?", "7 pm", "7:45 pm"),
    Change("place", "move", "tune",
           "The Saturday farmers' market is in Market Square.",
           "They shifted the Saturday farmers' market to Riverside Park.",
           "Where is the Saturday farmers' market?", "Market Square", "Riverside Park"),
    Change("place", "move", "confirm",
           "The quarterly planning meeting is in the Munich office.",
           "The quarterly planning meeting is held in the Berlin office now.",
           "Where is the quarterly planning meeting?", "the Munich office", "the Berlin office"),
    Change("room", "move", "tune",
           "The onboarding workshop is in room 3.12.", "The onboarding workshop is being relocated to room 2.04.",
           "Which room is the onboarding workshop in?", "room 3.12", "room 2.04"),
    Change("room", "move", "confirm",
           "The Spanish evening course meets in room 14.", "Spanish evening course will be in room 5 from now on.",
           "Which room does the Spanish evening course meet in?", "room 14", "room 5"),
    Change("frequency", "move", "tune",
           "The allergy shots are every week.", "The allergy shots have been changed to every other week.",
           "How often are the allergy shots?", "every week", "every other week"),
    Change("frequency", "move", "confirm",
           "Our running group meets twice a week.",
           "The running group's schedule has been adjusted to three times a week.",
           "How often does the running group meet?", "twice a week", "three times a week"),
    Change("amount", "move", "tune",
           "The monthly ad budget is 800 euros.", "They upped the ad budget to 1,020 euros.",
           "What is the monthly ad budget?", "800 euros", "1,020 euros"),
    Change("amount", "move", "confirm",
           "I take 50 mg of sertraline every morning.", "My doctor lowered the sertraline to 25 mg.",
           "How much sertraline do I take?", "50 mg", "25 mg"),
    Change("price", "move", "tune",
           "The streaming subscription is 9.99 a month.",
           "The streaming service bumped the subscription to 13.99 a month.",
           "How much is the streaming subscription?", "9.99", "13.99"),
    Change("price", "move", "confirm",
           "The airport shuttle costs 18 dollars one way.", "The airport shuttle fare was hiked to 24 dollars one way.",
           "How much is the airport shuttle?", "18 dollars", "24 dollars"),
    Change("person", "move", "tune",
           "Tomás leads the Tuesday reading group.", "The Tuesday reading group has been handed over to Priya.",
           "Who leads the Tuesday reading group?", "Tomás", "Priya"),
    Change("person", "move", "confirm",
           "Helena manages the billing migration project.", "The billing migration project was reassigned to Marcus.",
           "Who manages the billing migration project?", "Helena", "Marcus"),
    Change("duration", "move", "tune",
           "The all-hands meeting runs 90 minutes.", "The all-hands meeting was cut to 45 minutes.",
           "How long is the all-hands meeting?", "90 minutes", "45 minutes"),
    Change("duration", "move", "confirm",
           "My course of antibiotics lasts seven days.", "The course of antibiotics was extended to ten days.",
           "How long is my course of antibiotics?", "seven days", "ten days"),
    Change("count", "move", "tune",
           "The woodworking workshop is capped at 12 people.",
           "The cap on the woodworking workshop was raised to 16 people.",
           "How many people can join the woodworking workshop?", "12 people", "16 people"),
    Change("count", "move", "confirm",
           "Our support team has 4 people on the night shift.", "They doubled the night shift to 8 people.",
           "How many people are on the night shift?", "4 people", "8 people"),
    Change("day", "move", "tune",
           "Guitar lessons are on Mondays.", "Guitar lessons were rescheduled for Wednesdays.",
           "When are guitar lessons?", "Mondays", "Wednesdays"),
    Change("day", "move", "confirm",
           "My GP check-up is on Thursday.", "I've rebooked my GP check-up for Friday.",
           "When is my GP check-up?", "Thursday", "Friday"),
    Change("place", "move", "tune",
           "The wedding reception is at the Old Mill.", "The wedding reception now takes place in the Harbour Hall.",
           "Where is the wedding reception?", "the Old Mill", "the Harbour Hall"),
    Change("room", "move", "confirm",
           "At the Seaview Inn we have room 207.", "The Seaview Inn upgraded us to room 310.",
           "Which room are we in at the Seaview Inn?", "room 207", "room 310"),
    Change("date", "move", "tune",
           "My dental cleaning is on October 2.", "The dental cleaning was put off until October 9.",
           "When is my dental cleaning?", "October 2", "October 9"),
    Change("date", "move", "confirm",
           "Our hotel check-in in Kyoto is on April 14.", "The Kyoto hotel check-in has been advanced to April 12.",
           "When do we check in at the Kyoto hotel?", "April 14", "April 12"),
    Change("person", "move", "tune",
           "Coach Daniels runs the under-12 football team.",
           "The under-12 football team has been taken over by Coach Amara.",
           "Who coaches the under-12 football team?", "Coach Daniels", "Coach Amara"),
    Change("duration", "move", "confirm",
           "The weekly one-on-one with my manager is 30 minutes.",
           "My manager shortened the weekly one-on-one to 20 minutes.",
           "How long is the weekly one-on-one?", "30 minutes", "20 minutes"),
    Change("room", "move", "tune",
           "Pilates is in studio A.", "Pilates switched over to studio C.",
           "Which studio is pilates in?", "studio A", "studio C"),
    Change("frequency", "move", "confirm",
           "Bin collection on our street is weekly.", "The council scaled bin collection back to every two weeks.",
           "How often is bin collection on our street?", "weekly", "every two weeks"),
    Change("amount", "move", "tune",
           "Our rent is 1,450 euros a month.", "The landlord increased our rent to 1,520 euros a month.",
           "How much is our rent?", "1,450 euros", "1,520 euros"),
    Change("amount", "move", "confirm",
           "My salary is 52,000 a year.", "My salary has been revised to 58,000 a year.",
           "What is my salary?", "52,000", "58,000"),
    Change("price", "move", "tune",
           "A monthly gym membership is 40 euros.", "The gym membership dropped to 35 euros a month.",
           "How much is the gym membership?", "40 euros", "35 euros"),
    # ------------------------------------------------------------------ replace: "instead of", "as of today", ...
    Change("day", "replace", "tune",
           "Team lunch is on Thursdays.", "Team lunch is on Fridays rather than Thursdays.",
           "Which day is team lunch?", "Thursdays", "Fridays"),
    Change("person", "replace", "confirm",
           "Dr. Brennan is my cardiologist.", "My cardiologist is no longer Dr. Brennan — it's Dr. Osei.",
           "Who is my cardiologist?", "Dr. Brennan", "Dr. Osei"),
    Change("price", "replace", "tune",
           "The cloud storage plan costs 4 euros a month.",
           "Starting Monday the cloud storage plan will be 6 euros a month.",
           "How much does the cloud storage plan cost?", "4 euros", "6 euros"),
    Change("place", "replace", "confirm",
           "The tour group meeting point is the hotel lobby.",
           "Effective immediately, the tour group meeting point is the main fountain.",
           "Where is the tour group meeting point?", "the hotel lobby", "the main fountain"),
    Change("time", "replace", "tune",
           "The daily standup is at 9:30.", "Going forward the daily standup is at 9:00.",
           "What time is the daily standup?", "9:30", "9:00"),
    Change("frequency", "replace", "confirm",
           "My daughter has swimming lessons once a week.",
           "Beginning next week, my daughter's swimming lessons are twice a week.",
           "How often does my daughter have swimming lessons?", "once a week", "twice a week"),
    Change("place", "replace", "tune",
           "Our office is on Baker Street.", "No more Baker Street — our office is now on Canal Road.",
           "Where is our office?", "Baker Street", "Canal Road"),
    Change("count", "replace", "confirm",
           "Each tutoring group has six students.",
           "Tutoring groups will have four students, in place of the usual six.",
           "How many students are in each tutoring group?", "six", "four"),
    Change("frequency", "replace", "tune",
           "I take the iron supplement every day.", "I take the iron supplement every other day instead of daily.",
           "How often do I take the iron supplement?", "every day", "every other day"),
    Change("room", "replace", "confirm",
           "The Monday budget meeting is in conference room Aurora.",
           "From the 1st onward, the Monday budget meeting uses conference room Borealis.",
           "Which room is the Monday budget meeting in?", "Aurora", "Borealis"),
    Change("amount", "replace", "tune",
           "My kids get 5 euros pocket money a week.", "From next month the kids' pocket money will be 7 euros a week.",
           "How much pocket money do my kids get?", "5 euros", "7 euros"),
    Change("duration", "replace", "confirm",
           "My massage appointments are 60 minutes long.", "The new length for my massage appointments is 90 minutes.",
           "How long are my massage appointments?", "60 minutes", "90 minutes"),
    Change("date", "replace", "tune",
           "Our ferry to Santorini is on August 10.", "As of today our ferry to Santorini is booked for August 12.",
           "When is our ferry to Santorini?", "August 10", "August 12"),
    Change("person", "replace", "confirm",
           "Lena is our contact at the insurance company.",
           "From here on, our contact at the insurance company is Jonas.",
           "Who is our contact at the insurance company?", "Lena", "Jonas"),
    # ------------------------------------------------------------------ relative: the new value follows from the old
    Change("time", "relative", "tune",
           "The client call is at 3 pm.", "The client call has been pushed back an hour.",
           "What time is the client call?", "3 pm", "4 pm"),
    Change("time", "relative", "confirm",
           "My hair appointment is at 11:00.", "The hair appointment is now 30 minutes later than before.",
           "What time is my hair appointment?", "11:00", "11:30"),
    Change("date", "relative", "tune",
           "We fly to Dublin on June 20.", "The Dublin flight was moved up by two days.",
           "When do we fly to Dublin?", "June 20", "June 18"),
    Change("count", "relative", "confirm",
           "There are 9 members in our hiking group.", "Our hiking group has grown by two members.",
           "How many members does our hiking group have?", "9", "11"),
    Change("price", "relative", "tune",
           "The holiday flat costs 600 euros a week.", "The holiday flat went up by 50 euros a week.",
           "How much does the holiday flat cost per week?", "600 euros", "650 euros"),
    Change("amount", "relative", "confirm",
           "My daily vitamin D dose is 1,000 IU.", "My vitamin D dose is now 500 IU higher than it was.",
           "What is my daily vitamin D dose?", "1,000 IU", "1,500 IU"),
    Change("frequency", "relative", "tune",
           "I do speech therapy two sessions a week.", "Speech therapy is now one more session a week.",
           "How often do I do speech therapy?", "two sessions a week", "three sessions a week"),
    Change("duration", "relative", "confirm",
           "My long run on Sundays is 60 minutes.", "The Sunday long run is a quarter of an hour longer these days.",
           "How long is my Sunday long run?", "60 minutes", "75 minutes"),
)


DISTINCT: tuple[Distinct, ...] = (
    # ------------------------------------------------------------------ same slot kind, different subjects
    Distinct("day", "tune",
             "The yoga class is on Tuesdays.", "The pottery class is on Wednesdays.",
             "When is the yoga class?", "When is the pottery class?", "Tuesdays", "Wednesdays"),
    Distinct("day", "confirm",
             "Book club night is Monday.", "Saturday is chess club.",
             "Which night is book club?", "When is chess club?", "Monday", "Saturday"),
    # ------------------------------------------------------------------ one frame, a different qualifier
    Distinct("price", "tune",
             "Room 204 costs 90 a night.", "Room 310 costs 120 a night.",
             "How much does room 204 cost a night?", "How much does room 310 cost a night?", "90", "120"),
    Distinct("price", "confirm",
             "An adult ticket for the museum is 15 euros.", "For children the museum ticket is 8 euros.",
             "How much is an adult museum ticket?", "How much is a child's museum ticket?", "15 euros", "8 euros"),
    # ------------------------------------------------------------------ different people
    Distinct("place", "tune",
             "My sister lives in Ghent.", "My brother lives in Lyon.",
             "Where does my sister live?", "Where does my brother live?", "Ghent", "Lyon"),
    Distinct("person", "confirm",
             "My son's maths tutor is Mr. Ibrahim.", "Ms. Keller tutors my daughter in chemistry.",
             "Who is my son's maths tutor?", "Who tutors my daughter in chemistry?", "Mr. Ibrahim", "Ms. Keller"),
    # ------------------------------------------------------------------ a past event against a plan
    Distinct("place", "tune",
             "The conference was in Vienna last year.", "The conference is in Prague this year.",
             "Where was the conference last year?", "Where is the conference this year?", "Vienna", "Prague"),
    Distinct("amount", "confirm",
             "Last winter our heating bill came to 180 euros a month.",
             "This winter we expect to pay 210 euros a month for heating.",
             "How much was our heating bill last winter?", "How much will heating cost this winter?",
             "180 euros", "210 euros"),
    # ------------------------------------------------------------------ different days or times of one series
    Distinct("time", "tune",
             "The Monday standup is at 9 am.", "The Thursday standup is at 10 am.",
             "What time is the Monday standup?", "What time is the Thursday standup?", "9 am", "10 am"),
    Distinct("time", "confirm",
             "On weekdays the pool opens at 6:30.", "Saturdays the pool doesn't open until 8:00.",
             "When does the pool open on weekdays?", "When does the pool open on Saturdays?", "6:30", "8:00"),
    # ------------------------------------------------------------------ a move of a different thing
    Distinct("day", "tune",
             "The dentist appointment is on Friday.", "My haircut got bumped to Monday.",
             "When is the dentist appointment?", "When is my haircut?", "Friday", "Monday"),
    Distinct("place", "confirm",
             "The company picnic is at Lakeside Park.", "The board meeting has been transferred to the downtown hotel.",
             "Where is the company picnic?", "Where is the board meeting?", "Lakeside Park", "the downtown hotel"),
    # ------------------------------------------------------------------ a past event against a plan
    Distinct("date", "tune",
             "Last year the school fair was on May 14.", "This year the school fair is on May 20.",
             "When was the school fair last year?", "When is the school fair this year?", "May 14", "May 20"),
    Distinct("count", "confirm",
             "Forty guests came to our party in 2023.", "For this year's party we're expecting sixty guests.",
             "How many guests came to our party in 2023?", "How many guests are expected at this year's party?",
             "Forty", "sixty"),
    # ------------------------------------------------------------------ same slot kind, different subjects
    Distinct("person", "tune",
             "Nadia coaches the swim team.", "Viktor coaches the tennis team.",
             "Who coaches the swim team?", "Who coaches the tennis team?", "Nadia", "Viktor"),
    Distinct("frequency", "confirm",
             "The plants on the balcony need watering every two days.", "Once a week is enough for the cactus.",
             "How often do the balcony plants need watering?", "How often does the cactus need water?",
             "every two days", "Once a week"),
    # ------------------------------------------------------------------ a move of a different thing
    Distinct("time", "tune",
             "The parents' evening is at 6 pm.", "The school concert was shifted to 7:30 pm.",
             "What time is the parents' evening?", "What time is the school concert?", "6 pm", "7:30 pm"),
    Distinct("amount", "confirm",
             "My monthly savings transfer is 300 euros.", "The car loan payment was trimmed to 250 euros a month.",
             "How much is my monthly savings transfer?", "How much is the car loan payment?", "300 euros", "250 euros"),
    # ------------------------------------------------------------------ one frame, a different qualifier
    Distinct("room", "tune",
             "The marketing team meets in room 101.", "The sales team meets in room 105.",
             "Which room does the marketing team meet in?", "Which room does the sales team meet in?",
             "room 101", "room 105"),
    Distinct("duration", "confirm",
             "The beginners' kayak course lasts three days.", "For advanced paddlers the kayak course is five days.",
             "How long is the beginners' kayak course?", "How long is the advanced kayak course?",
             "three days", "five days"),
    # ------------------------------------------------------------------ different people
    Distinct("amount", "tune",
             "My daughter's allowance is 10 euros a week.", "My son's allowance is 15 euros a week.",
             "How much allowance does my daughter get?", "How much allowance does my son get?",
             "10 euros", "15 euros"),
    Distinct("day", "confirm",
             "Grandma visits on Sundays.", "Uncle Pete comes by on Wednesdays.",
             "When does Grandma visit?", "When does Uncle Pete come by?", "Sundays", "Wednesdays"),
    # ------------------------------------------------------------------ a past event against a plan
    Distinct("person", "tune",
             "Mr. Quinn taught the evening ceramics course last term.",
             "Ms. Hale is teaching the evening ceramics course next term.",
             "Who taught the evening ceramics course last term?",
             "Who is teaching the evening ceramics course next term?",
             "Mr. Quinn", "Ms. Hale"),
    Distinct("price", "confirm",
             "In 2022 the festival pass cost 120 euros.", "The festival pass for next summer is 145 euros.",
             "How much did the festival pass cost in 2022?", "How much is the festival pass next summer?",
             "120 euros", "145 euros"),
    # ------------------------------------------------------------------ different parts of one series
    Distinct("date", "tune",
             "The spring term starts on January 8.", "The autumn term starts on September 4.",
             "When does the spring term start?", "When does the autumn term start?", "January 8", "September 4"),
    Distinct("room", "confirm",
             "Monday's lecture is in hall 2.", "The Wednesday lecture takes place in hall 7.",
             "Where is Monday's lecture?", "Where is the Wednesday lecture?", "hall 2", "hall 7"),
    # ------------------------------------------------------------------ a move of a different thing
    Distinct("date", "tune",
             "My passport renewal appointment is on March 11.", "The car service was rescheduled for March 18.",
             "When is my passport renewal appointment?", "When is the car service?", "March 11", "March 18"),
    Distinct("person", "confirm",
             "Carla handles payroll.", "The visa paperwork was passed on to Ahmed.",
             "Who handles payroll?", "Who is handling the visa paperwork?", "Carla", "Ahmed"),
    # ------------------------------------------------------------------ same slot kind, different subjects
    Distinct("count", "tune",
             "The ski chalet sleeps 8 people.", "The lake cabin sleeps 5 people.",
             "How many people does the ski chalet sleep?", "How many people does the lake cabin sleep?",
             "8 people", "5 people"),
    Distinct("duration", "confirm",
             "My train commute takes 40 minutes.", "The walk to the gym is a quarter of an hour.",
             "How long is my train commute?", "How long is the walk to the gym?", "40 minutes", "a quarter of an hour"),
    # ------------------------------------------------------------------ a past event against a plan
    Distinct("frequency", "tune",
             "Last year I went to the gym three times a week.",
             "This year my plan is to go to the gym four times a week.",
             "How often did I go to the gym last year?", "How often do I plan to go to the gym this year?",
             "three times a week", "four times a week"),
    Distinct("time", "confirm",
             "The 2023 marathon started at 8:00 am.", "Next month's marathon starts at 7:30 am.",
             "What time did the 2023 marathon start?", "What time does next month's marathon start?",
             "8:00 am", "7:30 am"),
    # ------------------------------------------------------------------ a move of a different thing
    Distinct("price", "tune",
             "A coffee at the office café is 2.50.", "The canteen raised the price of lunch to 6.50.",
             "How much is a coffee at the office café?", "How much is lunch at the canteen?", "2.50", "6.50"),
    Distinct("frequency", "confirm",
             "Our newsletter goes out monthly.", "The team retro was stretched to every three weeks.",
             "How often does our newsletter go out?", "How often is the team retro?", "monthly", "every three weeks"),
    # ------------------------------------------------------------------ one frame, a different qualifier
    Distinct("time", "tune",
             "The express train to Lyon leaves at 7:05.", "The regional train to Lyon leaves at 7:40.",
             "When does the express train to Lyon leave?", "When does the regional train to Lyon leave?",
             "7:05", "7:40"),
    Distinct("place", "confirm",
             "International departures are in Terminal 2.", "Domestic flights leave from Terminal 1.",
             "Which terminal are international departures in?", "Which terminal do domestic flights leave from?",
             "Terminal 2", "Terminal 1"),
)

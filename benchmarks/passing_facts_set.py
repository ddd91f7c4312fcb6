"""Passing facts: things a user mentions once, in passing, inside a turn about something else.

One user tells an assistant 72 facts over about four months, nine kinds times eight: health, relations,
pets, places, belongings, identifiers, plans, preferences and standing instructions. Each `turn` opens
with small talk (traffic, weather, work, the kids' football ...) and carries the fact in its second or
third sentence, the way people chat. Each fact gets one `question`, asked months later in other words
than the turn's, and an `answer` copied exactly from the turn.

The facts are split in two halves, `tune` and `confirm`, alternating within each kind, so that a change
made while looking at one half can be checked on the other.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = (
    "health",
    "relations",
    "pets",
    "places",
    "belongings",
    "identifiers",
    "plans",
    "preferences",
    "instructions",
)
HALVES = ("tune", "confirm")


@dataclass(frozen=True)
class PassingFact:
    kind: str
    half: str
    turn: str
    """What the user says once: small talk first, the fact in the 2nd or 3rd sentence."""
    question: str
    """How it is asked months later: sharing little wording with the turn."""
    answer: str
    """The value that answers the question, exactly as written in `turn`."""


PASSING_FACTS: tuple[PassingFact, ...] = (
    # health
    PassingFact(
        "health",
        "tune",
        (
            "The ring road was gridlocked again this morning, sat there forty minutes going nowhere. I've been "
            "on levothyroxine ever since my thyroid packed in a few years back, so I take it first thing before "
            "coffee."
        ),
        "What hormone tablet am I on?",
        "levothyroxine",
    ),
    PassingFact(
        "health",
        "confirm",
        (
            "honestly the rain last night was biblical, the back garden is basically a pond now. Isla's match "
            "got called off, obviously. Oh and the dentist I see is Dr Moreau on Abbeydale Road, she's the only "
            "one who doesn't make me panic."
        ),
        "Who looks after my teeth?",
        "Dr Moreau",
    ),
    PassingFact(
        "health",
        "tune",
        (
            "Just got back from the big Tesco and it was absolutely heaving for a Tuesday. Penicillin gives me "
            "hives btw, found that out the hard way as a kid. Anyway the shopping's all put away now."
        ),
        "Which antibiotic am I allergic to?",
        "Penicillin",
    ),
    PassingFact(
        "health",
        "confirm",
        (
            "The meeting with the contractors ran two hours over and I am completely fried. Still haven't eaten. "
            "My bloods came back showing low iron, so the GP's put me on ferrous fumarate for three months."
        ),
        "What supplement was I prescribed for anaemia?",
        "ferrous fumarate",
    ),
    PassingFact(
        "health",
        "tune",
        (
            "We had the best curry tonight, I think I'm going to need a nap before I do anything else. I've had "
            "mild asthma since I was little - the blue inhaler basically lives in my coat pocket. So if I ever "
            "mention wheezing, that's why."
        ),
        "What breathing condition do I have?",
        "asthma",
    ),
    PassingFact(
        "health",
        "confirm",
        (
            "Quarter end is killing us, nobody on the team has had a proper lunch break all week. Marek, the "
            "physio who's sorting out my frozen shoulder, sees me every other Thursday. Thank god for him "
            "honestly."
        ),
        "Who's doing the rehab on my bad arm?",
        "Marek",
    ),
    PassingFact(
        "health",
        "tune",
        (
            "watched that new Scandi detective thing last night, far too many subtitles for a Monday. My husband "
            "fell asleep twenty minutes in. Being lactose intolerant, I skipped the ice cream he bought, oat "
            "milk is fine though."
        ),
        "What can't my stomach digest?",
        "lactose",
    ),
    PassingFact(
        "health",
        "confirm",
        (
            "The kids' football ran late again because the ref turned up twenty minutes after kick-off. Gave "
            "blood at the mobile unit afterwards and it turns out I'm O negative, so they want me back every "
            "twelve weeks."
        ),
        "What's my donor type?",
        "O negative",
    ),
    # relations
    PassingFact(
        "relations",
        "tune",
        (
            "Grim week at work, the restructure rumours are flying round the office again. My sister Nadia works "
            "as a dental hygienist up in Glasgow and she reckons I should just quit. Might ring her tonight."
        ),
        "What's my sibling's profession?",
        "dental hygienist",
    ),
    PassingFact(
        "relations",
        "confirm",
        (
            "Freezing this morning, I was scraping the windscreen for a good ten minutes. The house is weirdly "
            "quiet this week. That's because my husband is a paramedic and he's on nights until Sunday."
        ),
        "What's my other half's job?",
        "paramedic",
    ),
    PassingFact(
        "relations",
        "tune",
        (
            "The coffee machine at the office broke again, so everyone's been grumpy since nine. Harriet Osei, "
            "who I report to, is off in Lisbon till the end of the month, which honestly helps."
        ),
        "Who's my boss?",
        "Harriet Osei",
    ),
    PassingFact(
        "relations",
        "confirm",
        (
            "Isla scored twice on Saturday and was completely unbearable in the car home. My best mate Tunde, "
            "who lives in Nottingham now, drove up specially to watch her - he's her godfather."
        ),
        "Where is my oldest friend based these days?",
        "Nottingham",
    ),
    PassingFact(
        "relations",
        "tune",
        (
            "Mum phoned for an hour about her new neighbours and I could barely get a word in. Apparently they "
            "have three cats. My uncle Gareth still runs the hardware shop back in town, forty years this "
            "spring."
        ),
        "Which relative sells tools and screws for a living?",
        "Gareth",
    ),
    PassingFact(
        "relations",
        "confirm",
        (
            "Traffic on the A61 was a joke this evening, roadworks all the way into town. I think I'll work from "
            "home tomorrow. Brenda, my mother-in-law, is a retired magistrate and she has opinions about "
            "everything lol."
        ),
        "What's my husband's mum called?",
        "Brenda",
    ),
    PassingFact(
        "relations",
        "tune",
        (
            "Finally finished that 800-page fantasy book and my eyes are done for. The chap at number 12 - Piotr "
            "- takes in our parcels when we're out at work."
        ),
        "Who next door accepts deliveries for us?",
        "Piotr",
    ),
    PassingFact(
        "relations",
        "confirm",
        (
            "Long day, the fire alarm went off twice during the quarterly review. Had a sandwich at my desk at "
            "four. My brother's lad Rory has just started an apprenticeship as an electrician, we're all dead "
            "proud."
        ),
        "What trade is my nephew training for?",
        "electrician",
    ),
    # pets
    PassingFact(
        "pets",
        "tune",
        (
            "The wind last night took two fence panels clean off, what a mess out there. Still clearing up. Our "
            "dog's a retired racing greyhound called Biscuit and she was terrified of the noise."
        ),
        "What did we name our dog?",
        "Biscuit",
    ),
    PassingFact(
        "pets",
        "confirm",
        (
            "Work drinks went on way too long, I'm regretting that second glass now. Home by ten at least. We "
            "keep three hens at the bottom of the garden and the bossy one is Duchess, she rules the other two."
        ),
        "Which chicken is in charge of the flock?",
        "Duchess",
    ),
    PassingFact(
        "pets",
        "tune",
        (
            "Had to take the car in for a new tyre, which cost a small fortune. A woman called Sunita walks the "
            "dog for us every Wednesday while we're both at work."
        ),
        "Who takes our pooch out midweek?",
        "Sunita",
    ),
    PassingFact(
        "pets",
        "confirm",
        (
            "We're trying to sort the summer holidays and nobody can agree on anything. Whenever we go away the "
            "dog boards at Hollin Lane Kennels, they're the only place she settles."
        ),
        "Where does our pet stay while we're travelling?",
        "Hollin Lane Kennels",
    ),
    PassingFact(
        "pets",
        "tune",
        (
            "isla's got a sleepover tonight so it's four extra eleven-year-olds in the house, pray for me. At "
            "least the pizza's ordered. Nugget, her hamster, will be getting passed around all evening i bet."
        ),
        "What's my daughter's little rodent called?",
        "Nugget",
    ),
    PassingFact(
        "pets",
        "confirm",
        (
            "Spent the whole afternoon on hold to the council about the bins. The dog is petrified of the "
            "hoover, she hides in the bath the second it comes out."
        ),
        "Which household appliance terrifies our pet?",
        "hoover",
    ),
    PassingFact(
        "pets",
        "tune",
        (
            "We tried that new Lebanese place on London Road, the halloumi was unreal. Will definitely go back. "
            "The dog's vet is a Scottish guy called Mr Fraser at the Crookes practice, the only one she doesn't "
            "growl at."
        ),
        "Who treats our greyhound when she's poorly?",
        "Mr Fraser",
    ),
    PassingFact(
        "pets",
        "confirm",
        (
            "Sorted out the garage this weekend and found my old rollerblades, no idea why we kept them. The dog "
            "turned nine last month so she's officially a senior now, grey muzzle and all."
        ),
        "How old is our greyhound?",
        "nine",
    ),
    # places
    PassingFact(
        "places",
        "tune",
        (
            "The bin men skipped our road again, third time this month. I've emailed the council twice. Our "
            "house is the one with the green door on Westbourne Road, so they honestly have no excuse."
        ),
        "What street is our home on?",
        "Westbourne Road",
    ),
    PassingFact(
        "places",
        "confirm",
        (
            "It's been chucking it down since breakfast and the washing is still out. Oh well. I'm originally "
            "from Aberystwyth, so honestly I'm used to weather like this."
        ),
        "Where was I raised?",
        "Aberystwyth",
    ),
    PassingFact(
        "places",
        "tune",
        (
            "Locked myself out for the second time this week, I swear my brain is mush. Luckily the spare key's "
            "under the blue plant pot by the back door."
        ),
        "Where did we hide a backup way into the house?",
        "under the blue plant pot",
    ),
    PassingFact(
        "places",
        "confirm",
        (
            "Spent all evening filling in forms for Isla's school trip, so much paperwork. Honestly. Both "
            "passports are kept in the filing cabinet up in the loft, top drawer, if anyone needs them."
        ),
        "Where do we store our travel documents?",
        "filing cabinet",
    ),
    PassingFact(
        "places",
        "tune",
        (
            "Finally a sunny Sunday, I was starting to forget what the sun looked like. Nothing beats the walk "
            "up Stanage Edge, it's my absolute favourite place in the world."
        ),
        "Where do I most love to go hiking?",
        "Stanage Edge",
    ),
    PassingFact(
        "places",
        "confirm",
        (
            "Nobody could face cooking tonight, we were all shattered after swimming. So we went to Napoli "
            "Centrale on Division Street - hands down the best pizza in Sheffield, and our usual spot."
        ),
        "Which restaurant is our regular for Italian food?",
        "Napoli Centrale",
    ),
    PassingFact(
        "places",
        "tune",
        (
            "The lift at work has been broken for a week, so my calves are enormous now. Small mercies. Our "
            "office moved to the fourth floor of Kelham Works back in the autumn, hence all the stairs."
        ),
        "Which building is my workplace in these days?",
        "Kelham Works",
    ),
    PassingFact(
        "places",
        "confirm",
        (
            "The power tripped during dinner and we were sitting in the dark for ages. Isla thought it was "
            "hilarious. For future reference, the fuse box is in the cupboard under the stairs behind the coats."
        ),
        "Where is our electrics panel?",
        "the cupboard under the stairs",
    ),
    # belongings
    PassingFact(
        "belongings",
        "tune",
        (
            "Petrol prices are a joke at the moment, I nearly cried at the pump. Our car's a grey Skoda Octavia "
            "estate, so at least it's not a guzzler."
        ),
        "What do we drive?",
        "Skoda Octavia",
    ),
    PassingFact(
        "belongings",
        "confirm",
        (
            "Got absolutely soaked cycling in this morning, I had to dry my socks on the radiator. Worth it "
            "though. I commute on a Trek hybrid that I bought secondhand off a colleague three years ago."
        ),
        "Which bicycle do I ride to the office?",
        "Trek",
    ),
    PassingFact(
        "belongings",
        "tune",
        (
            "Isla's guitar teacher says she's doing really well, which is a relief at thirty quid a lesson. "
            "She's desperate to play mine. It's a 1990s Fender Telecaster that hasn't left the spare room in "
            "years, so maybe she should."
        ),
        "Which instrument of mine is gathering dust?",
        "Fender Telecaster",
    ),
    PassingFact(
        "belongings",
        "confirm",
        (
            "Spent my whole lunch on hold to the bank, total waste of an hour. Then their app wouldn't even "
            "load. The phone I've got is a Pixel 7, in case that's the problem."
        ),
        "Which mobile handset do I have?",
        "Pixel 7",
    ),
    PassingFact(
        "belongings",
        "tune",
        (
            "holiday reading list is sorted, I've got eleven books queued up already. I read everything on a "
            "Kobo Clara these days, paper books just hurt my wrists in bed."
        ),
        "What e-reader do I use?",
        "Kobo Clara",
    ),
    PassingFact(
        "belongings",
        "confirm",
        (
            "Parkrun was heaving this week, must be the good weather bringing everyone out. I still got a PB. "
            "The Garmin Forerunner on my wrist says I'm 'unproductive' though, cheeky thing."
        ),
        "What sports watch do I wear?",
        "Garmin Forerunner",
    ),
    PassingFact(
        "belongings",
        "tune",
        (
            "I've had about four hours of sleep so I'm running on pure caffeine today. We splashed out on a Sage "
            "Barista Express last year and it's honestly the best thing in the kitchen."
        ),
        "What espresso machine do we have at home?",
        "Sage Barista Express",
    ),
    PassingFact(
        "belongings",
        "confirm",
        (
            "The train home was rammed and someone's toddler screamed the entire way. Not their fault. The Sony "
            "WH-1000XM4 headphones I got for my birthday were the only thing keeping me sane."
        ),
        "Which noise-cancelling cans do I use when commuting?",
        "Sony WH-1000XM4",
    ),
    # identifiers
    PassingFact(
        "identifiers",
        "tune",
        (
            "Ugh, the leisure centre car park was full again so I ended up parking on a side street. Oh, before "
            "I forget, my locker there is number 57, I always forget it."
        ),
        "Which locker is mine at the gym?",
        "57",
    ),
    PassingFact(
        "identifiers",
        "confirm",
        (
            "New router finally arrived, only took them three weeks. Had to redo all the smart plugs. The wifi's "
            "called Hamster_Palace_5G now, Isla picked it, don't judge."
        ),
        "What's the name of our home internet network?",
        "Hamster_Palace_5G",
    ),
    PassingFact(
        "identifiers",
        "tune",
        (
            "Got flashed by a speed camera on the way back from Mum's, I think. Fingers crossed it was someone "
            "else. The plate's YK19 FHD if you need it for checking the fine online."
        ),
        "What's our vehicle's registration?",
        "YK19 FHD",
    ),
    PassingFact(
        "identifiers",
        "confirm",
        (
            "The GP surgery phone line is impossible, I was number 23 in the queue this morning. My NHS number "
            "is 485 777 3456, since they always ask and I never have it."
        ),
        "What's my health service ID?",
        "485 777 3456",
    ),
    PassingFact(
        "identifiers",
        "tune",
        (
            "Payroll messed up my overtime again, so that's another email to HR I'll have to write. Fun. "
            "HA-20417 is my staff number, in case you need it for the form."
        ),
        "What's my employee ID at work?",
        "HA-20417",
    ),
    PassingFact(
        "identifiers",
        "confirm",
        (
            "We did Clumber Park on Sunday and Isla ran herself ragged by the lake. Lovely day. Our National "
            "Trust membership is 3001 4471 9, joint with my husband."
        ),
        "What's our heritage charity member number?",
        "3001 4471 9",
    ),
    PassingFact(
        "identifiers",
        "tune",
        (
            "Did a hilly 10k before work and my legs are absolutely jelly now. The username I use on Strava is "
            "grit_and_gravel, so that's where all my runs end up."
        ),
        "What's my handle on the running app?",
        "grit_and_gravel",
    ),
    PassingFact(
        "identifiers",
        "confirm",
        (
            "The neighbour's cat set our burglar alarm off at 3am, I'm exhausted. We changed the code to 4719 "
            "afterwards, so that's the one now."
        ),
        "What PIN disarms our security system?",
        "4719",
    ),
    # plans
    PassingFact(
        "plans",
        "tune",
        (
            "Work is absolutely mental this week, three deadlines and a fire drill. The Skoda's MOT is due on 3 "
            "November, remind me nearer the time."
        ),
        "When does our car need its annual roadworthiness test?",
        "3 November",
    ),
    PassingFact(
        "plans",
        "confirm",
        (
            "The new series of Bake Off started and I've already cried once. No shame. I've got an eye test "
            "booked at Specsavers for 9 December at half ten."
        ),
        "When am I getting my vision checked?",
        "9 December",
    ),
    PassingFact(
        "plans",
        "tune",
        (
            "It's so grey out there I can't remember the last time I saw blue sky. Thank god we fly to Crete on "
            "26 July, a whole week of sun."
        ),
        "When does our Greek holiday start?",
        "26 July",
    ),
    PassingFact(
        "plans",
        "confirm",
        (
            "Harriet cancelled our one-to-one again, that's three in a row. Whatever. The funding bid has to be "
            "submitted by 28 February or we lose the whole grant round."
        ),
        "By when does the grant application need to be in?",
        "28 February",
    ),
    PassingFact(
        "plans",
        "tune",
        (
            "Isla's been practising her spellings at the breakfast table all week, bless her. My passport runs "
            "out in September, so I need to sort a renewal before summer."
        ),
        "In which month does my passport expire?",
        "September",
    ),
    PassingFact(
        "plans",
        "confirm",
        (
            "The hairdryer finally died this morning, mid-blowdry, naturally. So that's great. Lucky my next cut "
            "at the salon is on Saturday 11 January, she can sort the mess out."
        ),
        "When is my trim booked?",
        "Saturday 11 January",
    ),
    PassingFact(
        "plans",
        "tune",
        (
            "Someone at work brought in homemade brownies and I've had four, no regrets. Actually some regrets. "
            "Elbow are playing the City Hall on 12 May and we've got tickets, so excited."
        ),
        "When is the gig we're going to?",
        "12 May",
    ),
    PassingFact(
        "plans",
        "confirm",
        (
            "My inbox has two hundred unread emails and I've decided to simply ignore them. Bold strategy, I "
            "know. Parents' evening for Isla is on 19 March at ten past six."
        ),
        "When do I meet my daughter's teachers?",
        "19 March",
    ),
    # preferences
    PassingFact(
        "preferences",
        "tune",
        (
            "The office heating is broken so we're all sat in our coats like penguins. When I fly I always go "
            "for an aisle seat, my bladder is tiny — worth remembering if you ever book anything."
        ),
        "Where do I prefer to sit on a plane?",
        "aisle seat",
    ),
    PassingFact(
        "preferences",
        "confirm",
        (
            "Made tacos for tea and Isla ate her body weight in them. Proper result. Coriander though, I can't "
            "stand it, tastes like soap to me so I picked it all out."
        ),
        "Which herb do I hate?",
        "Coriander",
    ),
    PassingFact(
        "preferences",
        "tune",
        (
            "Rushed out the door without breakfast so I'm living off the café downstairs today. A cortado is my "
            "usual there, anything bigger and I get the shakes."
        ),
        "What's my go-to coffee order?",
        "cortado",
    ),
    PassingFact(
        "preferences",
        "confirm",
        (
            "Did the whole kitchen with the radio on and it was weirdly therapeutic. Al Green is my all-time "
            "favourite, put him on and I'm happy for hours."
        ),
        "Which singer do I love most?",
        "Al Green",
    ),
    PassingFact(
        "preferences",
        "tune",
        (
            "My husband wants a film night on Saturday and he's picking, which worries me. Last time it was four "
            "hours long. Horror is a hard no for me, I genuinely don't sleep afterwards."
        ),
        "What kind of movies should never be chosen for me?",
        "Horror",
    ),
    PassingFact(
        "preferences",
        "confirm",
        (
            "We're doing a big family barbecue on Sunday if the weather holds. Fingers crossed. I like my steak "
            "medium rare, anything more and it's boot leather."
        ),
        "How do I want my beef cooked?",
        "medium rare",
    ),
    PassingFact(
        "preferences",
        "tune",
        (
            "The wine shop on the corner is closing down and everything's thirty percent off. Rioja's the only "
            "red I ever really buy, so I stocked up."
        ),
        "What's my favourite kind of red?",
        "Rioja",
    ),
    PassingFact(
        "preferences",
        "confirm",
        (
            "Went to a car boot sale at seven this morning, which was a mistake on a Saturday. What I really "
            "love is mid-century furniture, all teak and tapered legs, so I came home with a sideboard."
        ),
        "What style of interiors do I like?",
        "mid-century",
    ),
    # instructions
    PassingFact(
        "instructions",
        "tune",
        (
            "The school run was chaos today, somebody parked across the gates again. Please just call me Mags, "
            "nobody except my mother uses Margaret."
        ),
        "Which name do I go by with you?",
        "Mags",
    ),
    PassingFact(
        "instructions",
        "confirm",
        (
            "Been planning a cycling route for the summer and the maps are doing my head in. Too many hills. "
            "Distances in kilometres from now on, please, I can't think in miles."
        ),
        "Which units should you use for how far things are?",
        "kilometres",
    ),
    PassingFact(
        "instructions",
        "tune",
        (
            "My mum sent me a diet book for my birthday, subtle as ever. Never bring up calories or my weight "
            "with me, I mean it, that's off limits."
        ),
        "What body-related topics should you steer clear of?",
        "calories",
    ),
    PassingFact(
        "instructions",
        "confirm",
        (
            "Got my timings wrong and missed the start of the webinar completely. Use the 24-hour clock whenever "
            "you give me times, it saves me getting confused."
        ),
        "How should you write out the hour of day?",
        "24-hour clock",
    ),
    PassingFact(
        "instructions",
        "tune",
        (
            "My attention span is shot today, I reread the same email about six times. Anyway. Keep answers "
            "under 100 words unless I specifically ask for more."
        ),
        "How long should your replies be?",
        "100 words",
    ),
    PassingFact(
        "instructions",
        "confirm",
        (
            "Nearly bought a £300 air fryer at midnight last night, thank god the basket timed out. Lesson "
            "learned. If something costs more than £50, check with me before booking or buying it."
        ),
        "Above what price do purchases need my say-so?",
        "£50",
    ),
    PassingFact(
        "instructions",
        "tune",
        (
            "Reading Isla's homework and the American spellings are creeping in everywhere. British spelling for "
            "me, always - colour with a u, that sort of thing."
        ),
        "Which variety of English should you write in?",
        "British",
    ),
    PassingFact(
        "instructions",
        "confirm",
        (
            "The printer at work jammed again in the middle of the board pack — classic Monday. Please don't "
            "sign off with 'let me know if you need anything else', it drives me up the wall."
        ),
        "What closing line in your messages annoys me?",
        "let me know if you need anything else",
    ),
)

"""Passing facts, held out: written after the rules the `tune` and `confirm` halves led to.

The shape is `passing_facts_set`'s: small talk first, the fact in the second or third sentence, one
question asked months later in other words, the answer copied exactly from the turn. Sixteen facts: the
people and animals around the user (named by their relation in the turn and often by another word for it
in the question, as people do), and a few of other kinds beside them. Every fact is in the `holdout` half;
`said_in_passing.py --facts holdout` tells them instead of the set.
"""

from __future__ import annotations

from passing_facts_set import PassingFact

HALF = "holdout"

PASSING_HOLDOUT: tuple[PassingFact, ...] = (
    PassingFact(
        "relations", HALF,
        "The bus was rammed this morning, standing room only all the way in. My sister teaches Year 4 at a "
        "primary school in Leeds, so she's off for half term and gloating about it.",
        "What does my sibling do for work?", "teaches Year 4"),
    PassingFact(
        "relations", HALF,
        "Can't believe it's dark by half four already. My wife Noor is training for the Manchester marathon, "
        "so our weekends are all long runs and pasta.",
        "What race is my partner preparing for?", "Manchester marathon"),
    PassingFact(
        "relations", HALF,
        "The new coffee machine at work makes everything taste of burnt toast. My manager, Colm, signs off "
        "every leave request by Thursday noon, so I need to get mine in.",
        "By when does my boss approve time off?", "Thursday noon"),
    PassingFact(
        "relations", HALF,
        "We finally put the Christmas lights up, only half of them work. My dad is allergic to shellfish, "
        "which makes the Boxing Day seafood platter a whole negotiation.",
        "What can't my father eat?", "shellfish"),
    PassingFact(
        "relations", HALF,
        "Parents' evening overran by an hour, as usual. Our son plays the trombone in the county youth "
        "band, rehearsals every Saturday morning.",
        "Which instrument does our kid play?", "trombone"),
    PassingFact(
        "relations", HALF,
        "The heating engineer finally turned up, three days late. My grandmother lives in a care home in "
        "Whitby called Seaview Court, and we visit on the first Sunday of the month.",
        "Where does my nan live?", "Seaview Court"),
    PassingFact(
        "relations", HALF,
        "Long meeting about the budget that went absolutely nowhere. My colleague Anouk covers my calls "
        "whenever I'm out of the office.",
        "Which workmate picks up my phone when I'm away?", "Anouk"),
    PassingFact(
        "relations", HALF,
        "Spent the whole evening assembling a wardrobe with one screw missing. My mum's birthday is on the "
        "ninth of March and she wants nothing, which means she wants something.",
        "When is my mother's birthday?", "ninth of March"),
    PassingFact(
        "pets", HALF,
        "The kids have been bickering all week about whose turn it is to feed the fish. Our puppy, Bramble, "
        "is booked in to be spayed on the 14th.",
        "When is our dog's operation?", "the 14th"),
    PassingFact(
        "pets", HALF,
        "The window cleaner left smears on every single pane. Our kitten is on a special renal diet from "
        "the vet, the blue bag, nothing else.",
        "What food is our cat on?", "renal diet"),
    PassingFact(
        "pets", HALF,
        "I've got three deadlines on the same day, brilliant. The hound sleeps in a crate in the utility "
        "room, otherwise she eats the sofa cushions.",
        "Where does our dog sleep?", "utility room"),
    PassingFact(
        "pets", HALF,
        "Lunch was a sad supermarket sandwich at my desk. Our cat Juniper is terrified of the hoover, she "
        "hides under the bed the second it comes out.",
        "What frightens our kitty?", "hoover"),
    PassingFact(
        "places", HALF,
        "The motorway services had run out of everything except crisps. The spare car key is in the blue "
        "tin on top of the fridge.",
        "Where is the extra key for the car?", "blue tin"),
    PassingFact(
        "identifiers", HALF,
        "The printer has decided it only speaks in error codes now. Our broadband account number is "
        "BX-40917, in case I need to ring them again.",
        "What's the reference for our internet contract?", "BX-40917"),
    PassingFact(
        "health", HALF,
        "We went for a walk along the canal and it started hailing. I'm on a low dose of propranolol for "
        "the migraines, one tablet at night.",
        "What do I take to prevent my headaches?", "propranolol"),
    PassingFact(
        "preferences", HALF,
        "The delivery came three hours outside the slot, obviously. I really can't stand coriander, it "
        "tastes like soap to me, so please leave it out of any recipe.",
        "Which herb should recipes for me skip?", "coriander"),
)

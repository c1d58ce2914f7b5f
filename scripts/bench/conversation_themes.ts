/**
 * The everyday chit-chat of the conversational recall set (conversations.ts): themes with user openers
 * and assistant replies that share the facts' words, and the openers, tails and follow-ups around them.
 */

/** Everyday chit-chat: themes with user openers and assistant replies that share the facts' words. */
export const THEMES: Record<string, { user: string[]; assistant: string[] }> = {
  travel: {
    user: [
      "What should I pack for a week in {city} in {month}?",
      "Is it worth renting a car for a trip like that?",
      "Can you suggest a day trip from {city}?",
      "How early should I get to the airport for an international flight?",
      "We're thinking about a holiday with the kids, somewhere warm.",
      "Any tips for dealing with jet lag?",
    ],
    assistant: [
      "Layers are your friend: evenings in {city} can be cool even when the days are warm.",
      "A car helps for the countryside; in the old town walking and trams are easier.",
      "Trains out of {city} reach several small towns within an hour, a relaxed day trip.",
      "Two to three hours before departure is a safe margin for international flights.",
      "Family holidays work best with one slow day for every two busy ones.",
      "Shift your sleep an hour a day before you fly, and get outside in daylight when you land.",
    ],
  },
  cooking: {
    user: [
      "What can I cook tonight with rice, eggs and some leftover vegetables?",
      "How do I keep fresh herbs from wilting?",
      "Is cast iron really better than non-stick for searing?",
      "I need a quick lunch idea I can prepare on Sunday for the week.",
      "Why does my bread come out so dense?",
      "Can you suggest a dessert that doesn't need an oven?",
    ],
    assistant: [
      "Fried rice is perfect: day-old rice, a hot pan, eggs scrambled in, and whatever vegetables you have.",
      "Trim the stems and keep them in a glass of water in the fridge, loosely covered.",
      "Cast iron holds heat better, so the sear is deeper; non-stick is easier for eggs.",
      "Grain bowls keep well: cook a big batch of grains and roast two trays of vegetables.",
      "Dense bread usually means under-proofing or too much flour; try a wetter dough.",
      "A no-bake cheesecake or chocolate mousse both work without an oven.",
    ],
  },
  work: {
    user: [
      "My manager wants a status report every Friday; how do I keep it short?",
      "How do I say no to extra projects without sounding lazy?",
      "I have a performance review next week, any advice?",
      "Our team meetings run over every time.",
      "How do I ask for feedback from a senior colleague?",
      "I'm thinking of asking for a raise.",
    ],
    assistant: [
      "Three headings work well: done, next, blocked. One line each.",
      "Say what you would have to drop to take it on, and let them choose.",
      "List your wins with numbers, and bring one thing you want to grow in.",
      "A written agenda with times per item and a hard stop usually fixes that.",
      "Ask about one specific piece of work; general feedback requests get general answers.",
      "Gather market data and your recent results, then ask for a meeting just about pay.",
    ],
  },
  fitness: {
    user: [
      "How many steps a day is actually useful?",
      "My knees hurt after running, what am I doing wrong?",
      "Is stretching before exercise still recommended?",
      "What should I eat after a workout?",
      "I keep skipping the gym in winter.",
      "How do I start strength training at home?",
    ],
    assistant: [
      "Benefits rise up to about seven to eight thousand steps a day and then level off.",
      "Often it's too much mileage too soon, or worn shoes; build up by ten percent a week.",
      "A dynamic warm-up beats static stretching before exercise.",
      "Protein and some carbohydrates within a couple of hours helps recovery.",
      "Schedule workouts like meetings and keep your kit by the door.",
      "Bodyweight squats, push-ups and rows with a resistance band cover the basics.",
    ],
  },
  money: {
    user: [
      "How big should an emergency fund be?",
      "Should I pay off my student loan early?",
      "What's a simple way to budget?",
      "Our electricity bill doubled this winter.",
      "Is it worth switching banks for a better interest rate?",
      "How do I start investing with small amounts?",
    ],
    assistant: [
      "Three to six months of essential expenses is the usual guideline.",
      "If the interest rate is low, investing the extra may earn more than early repayment.",
      "The 50/30/20 split is a simple start: needs, wants, savings.",
      "Check the tariff and insulation first; draughts are often the biggest loss.",
      "Often yes, if switching is easy and the difference is meaningful on your balance.",
      "A low-cost index fund with a monthly automatic contribution is a good start.",
    ],
  },
  code: {
    user: [
      "Can you explain what a race condition is?",
      "Our CI pipeline takes forty minutes, how do we speed it up?",
      "Should we use a monorepo for three services?",
      "How do I write a good pull request description?",
      "What's the difference between a process and a thread?",
      "Our API returns 500s under load.",
    ],
    assistant: [
      "A race condition happens when the result depends on the timing of concurrent operations.",
      "Cache dependencies, split tests across runners and only run what the change touches.",
      "A monorepo helps when services share code and release together.",
      "Say what changed, why, and how it was tested; link the issue.",
      "Processes have separate memory; threads share memory within a process.",
      "Look at connection pool limits and timeouts first; load often exhausts the pool.",
    ],
  },
  books: {
    user: [
      "Can you recommend a novel for a long flight?",
      "I never finish the books I start.",
      "Are audiobooks as good as reading?",
      "What's a good classic to start with?",
      "I want to read more non-fiction this year.",
      "How do people read fifty books a year?",
    ],
    assistant: [
      "Something with momentum works best on a plane, a mystery or an adventure.",
      "Give yourself permission to drop a book after fifty pages.",
      "Comprehension is similar for most books; audiobooks fit commutes well.",
      "Short classics like Of Mice and Men or The Great Gatsby are easy starts.",
      "Pick a topic you are curious about and read two books on it back to back.",
      "Mostly habit: twenty minutes a day, and always carrying a book.",
    ],
  },
  home: {
    user: [
      "How do I get rid of mould in the bathroom?",
      "The kitchen tap drips all night.",
      "What's the best way to organise a small closet?",
      "Our neighbours are really noisy at night.",
      "Should we paint the living room ourselves?",
      "How often should I clean the fridge?",
    ],
    assistant: [
      "Diluted bleach or vinegar on the surface, then improve ventilation so it doesn't return.",
      "Usually a worn washer or cartridge; both are cheap and easy to replace.",
      "Vertical storage and uniform hangers free up a surprising amount of space.",
      "A friendly conversation first; most people don't realise how far sound carries.",
      "Painting yourself is very doable: prep, good tape and two thin coats.",
      "A quick wipe weekly and a deep clean every three months keeps it fresh.",
    ],
  },
  pets: {
    user: [
      "How often should a dog see the vet?",
      "The cat scratches the sofa every night.",
      "Is it okay to leave a dog alone for a whole workday?",
      "What's a good name for a grey kitten?",
      "How do I stop a puppy from biting?",
      "Our dog pulls on the lead constantly.",
    ],
    assistant: [
      "Once a year for a check-up, twice for older dogs.",
      "A tall scratching post next to the sofa and a deterrent spray usually redirect it.",
      "Eight hours is long for most dogs; a midday walker helps a lot.",
      "Smoke, Ash, Pebble or Earl Grey are popular picks for grey kittens.",
      "Redirect to a chew toy and pause play whenever teeth touch skin.",
      "Stop walking whenever the lead goes tight and reward a loose lead.",
    ],
  },
  family: {
    user: [
      "My parents are visiting for two weeks, how do I keep my sanity?",
      "What do you get a teenager for their birthday?",
      "My brother and I keep arguing about the family business.",
      "How do I plan a surprise party without the person finding out?",
      "Any ideas for a weekend with the grandparents?",
      "My sister wants me to help plan her wedding.",
    ],
    assistant: [
      "Plan a few outings and keep some evenings to yourself; two weeks is a marathon.",
      "Experiences or money towards something they're saving for usually land well.",
      "A neutral mediator can help you both separate family from business.",
      "Use a group chat without them in it and give them a believable decoy plan.",
      "A museum morning and a long lunch works for most ages.",
      "Start with the budget and the guest list; everything else follows from those two.",
    ],
  },
  garden: {
    user: [
      "When should I plant tomatoes?",
      "The lawn has brown patches everywhere.",
      "What grows well on a shady balcony?",
      "How do I start composting in a flat?",
      "Slugs ate all my lettuce.",
      "Should I water the garden in the morning or evening?",
    ],
    assistant: [
      "After the last frost, when nights stay above ten degrees.",
      "Brown patches often come from drought or grubs; water deeply and check the roots.",
      "Ferns, mint, begonias and most herbs cope well with shade.",
      "A small bokashi bin works in a flat without smells.",
      "Copper tape and evening patrols with a torch keep slugs down.",
      "Morning is best: less evaporation and leaves dry before night.",
    ],
  },
};

export const OPENERS = ["", "", "Quick question: ", "Another thing. ", "By the way, ", "Random one: "];
export const USER_TAILS = [
  "",
  "",
  "",
  " It's been on my mind for a while.",
  " We don't have much time.",
  " Any ideas?",
];
export const ASSISTANT_TAILS = [
  "",
  "",
  " Let me know if you want more detail.",
  " Happy to go deeper on any of this.",
  " It depends a bit on your situation, of course.",
];

export const FOLLOW_UPS = [
  "That makes sense, thanks.",
  "Interesting, I hadn't thought of that.",
  "Good point, I'll try that this week.",
  "Hmm, I'm not sure that would work for us.",
  "Could you say a bit more about that?",
  "Okay, let me think about it.",
];

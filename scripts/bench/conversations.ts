/**
 * A seeded, labelled conversational recall set: long multi-session chats between a user and an
 * assistant, each turn stored as one memory, with questions whose answering turns are known.
 *
 * Each chat is one person's history (own namespace, so each question is asked of its own haystack):
 * sessions on everyday themes (travel, cooking, work, fitness, money, code, books, home), filled
 * with chit-chat that shares the facts' vocabulary, and personal facts dropped into them. Every fact
 * also leaves near-miss turns (same words, other details) elsewhere in the chat. Question kinds:
 *
 * - direct: asks with the words the answer used;
 * - paraphrase: asks with other words for the same thing (dog / pet, start / first day);
 * - time: asks when something happened; the answer carries the date;
 * - multi: the answer is spread over several turns (any of them counts);
 * - context: the answer turn lacks the question's topic words, which only its neighbours carry
 *   ("I settled on a name for the sailboat." … "Wandering Heron, after my grandmother's village.").
 *
 * Scoring (scripts/bench/recall.ts) is recall_any@k: a question counts when any labelled turn is in
 * the top k. The generator was fixed before any measurement against it; the seed makes it repeatable.
 */
import { rng } from "./data.ts";

export type QuestionKind = "direct" | "paraphrase" | "time" | "multi" | "context";

export interface Turn {
  /** Stable within the set: `c03-s07-t12`. */
  key: string;
  /** The generated set's turns are a user's or the assistant's. */
  role?: "user" | "assistant";
  /** The public sets' turns (public_sets.ts) name who wrote them. */
  speaker?: string;
  text: string;
}

export interface Session {
  id: string;
  /** Day the session took place (ISO date); sessions are in order. */
  date: string;
  turns: Turn[];
}

export interface Question {
  chat: string;
  /** QuestionKind for the generated set; the public sets' own categories (public_sets.ts). */
  kind: string;
  question: string;
  /** Keys of the turns that answer it. */
  answers: string[];
}

export interface Chat {
  id: string;
  sessions: Session[];
}

export interface ConversationSet {
  chats: Chat[];
  questions: Question[];
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const shuffle = <T>(r: Rand, xs: T[]): T[] => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
};

const NAMES = [
  "Biscuit",
  "Juniper",
  "Pepper",
  "Miso",
  "Waffles",
  "Clementine",
  "Rufus",
  "Hazel",
  "Tofu",
  "Ziggy",
  "Marlowe",
  "Pickles",
];
const PEOPLE = [
  "Priya",
  "Tomasz",
  "Aiko",
  "Mateo",
  "Siobhan",
  "Kwame",
  "Ingrid",
  "Rafael",
  "Leila",
  "Dmitri",
];
const CITIES = [
  "Lisbon",
  "Porto",
  "Valencia",
  "Kyoto",
  "Montreal",
  "Tallinn",
  "Oaxaca",
  "Ljubljana",
  "Hanoi",
];
const COMPANIES = ["Northwind", "Brightline", "Kestrel Labs", "Orbital Foods", "Tidewater", "Quillsoft"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const BREEDS = ["beagle", "border collie", "corgi", "dachshund", "labrador", "whippet"];
const INSTRUMENTS = ["cello", "ukulele", "trumpet", "violin", "banjo", "clarinet"];
const DISHES = ["shakshuka", "mushroom risotto", "pad see ew", "lamb tagine", "pierogi", "dal makhani"];
const BOATS = ["Wandering Heron", "Salt Whisper", "Little Gale", "Blue Margin", "Kittiwake"];
const CARS = ["Skoda Octavia", "Mazda 3", "Volvo V60", "Toyota Yaris", "Kia Niro"];
const ALLERGIES = ["peanuts", "shellfish", "sesame", "kiwi", "penicillin"];
const LANGS = ["Portuguese", "Japanese", "Italian", "Korean", "Dutch", "Greek"];
const BOOKS = ["The Overstory", "Piranesi", "Klara and the Sun", "The Dispossessed", "Middlemarch"];
const SPORTS = ["bouldering", "rowing", "trail running", "squash", "swimming"];

const day = (r: Rand) => 1 + Math.floor(r() * 28);
const ordinal = (n: number) =>
  `${n}${
    n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th"
  }`;

interface FactTurn {
  role: "user" | "assistant";
  text: string;
  /** Labelled as answering this fact's questions. */
  answer?: boolean;
}

interface Fact {
  turns: FactTurn[];
  /** Questions over those turns; `answers` are indices into `turns` (default: every answer turn). */
  questions: { kind: QuestionKind; question: string; answers?: number[] }[];
  /** Near-miss turns to scatter elsewhere in the chat. */
  distractors: string[];
}

/** Fact makers: each draws its details and returns the turns, the questions and the near misses. */
const FACTS: ((r: Rand) => Fact)[] = [
  (r) => {
    const [name, breed, other] = [pick(r, NAMES), pick(r, BREEDS), pick(r, BREEDS)];
    return {
      turns: [
        {
          role: "user",
          text: `We adopted a ${breed} puppy last weekend and named her ${name}.`,
          answer: true,
        },
        {
          role: "assistant",
          text:
            `Congratulations! ${name} is a lovely name. The first weeks are about routine: regular meals, short walks and lots of sleep.`,
        },
      ],
      questions: [
        { kind: "direct", question: `What did we name the ${breed} puppy we adopted?` },
        { kind: "paraphrase", question: "What is my new dog called?" },
      ],
      distractors: [
        `My neighbour's ${other} barks every time the mail arrives.`,
        `Do puppies need a special diet, or is regular dog food fine?`,
      ],
    };
  },
  (r) => {
    const [company, month, d] = [pick(r, COMPANIES), pick(r, MONTHS), day(r)];
    const role = pick(r, [
      "data engineer",
      "product designer",
      "site reliability engineer",
      "backend developer",
    ]);
    return {
      turns: [
        {
          role: "user",
          text: `Big news: I accepted the offer from ${company} as a ${role}. I start on ${month} ${
            ordinal(d)
          }.`,
          answer: true,
        },
        {
          role: "assistant",
          text:
            `That's wonderful, congratulations on the new role! Want help planning the transition from your current job?`,
        },
      ],
      questions: [
        { kind: "direct", question: "Which company's offer did I accept?" },
        { kind: "paraphrase", question: "Where am I going to be working next?" },
        { kind: "time", question: "When is my first day at the new job?" },
      ],
      distractors: [
        `A recruiter from ${pick(r, COMPANIES)} emailed me about a ${role} opening but I ignored it.`,
        `How should I negotiate salary when an offer comes in?`,
      ],
    };
  },
  (r) => {
    const boat = pick(r, BOATS);
    return {
      turns: [
        { role: "user", text: "I finally settled on a name for the sailboat." },
        { role: "assistant", text: "Exciting! What did you go with?" },
        { role: "user", text: `${boat}, after my grandmother's fishing village.`, answer: true },
        { role: "assistant", text: `${boat} has a lovely ring to it, and it honours her too.` },
      ],
      questions: [
        { kind: "context", question: "What name did I give my sailboat?", answers: [2] },
      ],
      distractors: [
        "The marina raised the mooring fees for sailboats again this year.",
        "Is it bad luck to rename a boat? My uncle swears it is.",
      ],
    };
  },
  (r) => {
    const [city, month, year] = [pick(r, CITIES), pick(r, MONTHS), 2019 + Math.floor(r() * 5)];
    return {
      turns: [
        {
          role: "user",
          text: `We moved to ${city} in ${month} ${year}, and it still feels new.`,
          answer: true,
        },
        {
          role: "assistant",
          text: `${city} is a beautiful place to live. Have you found a favourite neighbourhood yet?`,
        },
      ],
      questions: [
        { kind: "time", question: `When did we move to ${city}?` },
        { kind: "paraphrase", question: "Which city do I live in now?" },
      ],
      distractors: [
        `My cousin keeps saying she will move to ${pick(r, CITIES)} one day.`,
        "What should I check before signing a lease in a new city?",
      ],
    };
  },
  (r) => {
    const [instrument, teacher] = [pick(r, INSTRUMENTS), pick(r, PEOPLE)];
    return {
      turns: [
        {
          role: "user",
          text: `I signed up for ${instrument} lessons with a teacher called ${teacher}.`,
          answer: true,
        },
        {
          role: "assistant",
          text:
            "Lovely! Adult beginners progress fast with short daily practice, fifteen minutes is plenty at first.",
        },
        {
          role: "user",
          text: `${teacher} says I should practise scales before every session.`,
          answer: true,
        },
      ],
      questions: [
        { kind: "direct", question: `Who teaches my ${instrument} lessons?` },
        { kind: "paraphrase", question: "What musical instrument am I learning to play?", answers: [0] },
      ],
      distractors: [
        `My son wants to quit piano lessons; should I let him?`,
        `The concert last night had an amazing ${pick(r, INSTRUMENTS)} solo.`,
      ],
    };
  },
  (r) => {
    const allergy = pick(r, ALLERGIES);
    return {
      turns: [
        {
          role: "user",
          text: `Please keep in mind that I'm allergic to ${allergy} when suggesting recipes.`,
          answer: true,
        },
        {
          role: "assistant",
          text: `Noted, I'll avoid ${allergy} in anything I suggest and point out common hidden sources.`,
        },
      ],
      questions: [
        { kind: "direct", question: "What am I allergic to?" },
        { kind: "paraphrase", question: "Which food must be left out of meals you suggest for me?" },
      ],
      distractors: [
        `My coworker had a reaction to ${pick(r, ALLERGIES)} at the team lunch.`,
        "Are food allergies more common in adults now?",
      ],
    };
  },
  (r) => {
    const [dish, person] = [pick(r, DISHES), pick(r, PEOPLE)];
    return {
      turns: [
        { role: "user", text: `I'm hosting dinner for ${person}'s birthday on Saturday.` },
        { role: "assistant", text: "Fun! Do you have a main course in mind?" },
        { role: "user", text: `I'm going to make ${dish}, it's the one dish I never mess up.`, answer: true },
      ],
      questions: [
        { kind: "context", question: `What am I cooking for ${person}'s birthday dinner?`, answers: [2] },
        {
          kind: "paraphrase",
          question: "What's the one dish I'm confident I can always cook well?",
          answers: [2],
        },
      ],
      distractors: [
        `${person} said the restaurant's ${pick(r, DISHES)} was too salty.`,
        "How far ahead can I prepare food for a dinner party?",
      ],
    };
  },
  (r) => {
    const [car, price] = [pick(r, CARS), 8 + Math.floor(r() * 20)];
    return {
      turns: [
        { role: "user", text: `We bought a used ${car} for ${price},000 euros.`, answer: true },
        {
          role: "assistant",
          text: "Nice. Keep the service booklet; a used car's history adds a lot to its resale value.",
        },
      ],
      questions: [
        { kind: "direct", question: "Which car did we buy?" },
        { kind: "paraphrase", question: "How much did we pay for our vehicle?" },
      ],
      distractors: [
        `The rental ${pick(r, CARS)} on holiday had terrible brakes.`,
        "Is it better to lease or buy a car these days?",
      ],
    };
  },
  (r) => {
    const [lang, month, d] = [pick(r, LANGS), pick(r, MONTHS), day(r)];
    return {
      turns: [
        {
          role: "user",
          text: `My ${lang} exam is on ${month} ${ordinal(d)}, so evenings are for studying until then.`,
          answer: true,
        },
        {
          role: "assistant",
          text:
            "Spaced repetition and past papers will give you the most for the time. Shall we make a plan?",
        },
      ],
      questions: [
        { kind: "time", question: `When is my ${lang} exam?` },
        { kind: "paraphrase", question: "Which language test am I preparing for?" },
      ],
      distractors: [
        `I watched a ${pick(r, LANGS)} film without subtitles and understood almost nothing.`,
        "What's the fastest way to pick up vocabulary?",
      ],
    };
  },
  (r) => {
    const [book, person] = [pick(r, BOOKS), pick(r, PEOPLE)];
    return {
      turns: [
        { role: "user", text: `Our book club picked ${book} for next month.`, answer: true },
        { role: "assistant", text: "A great choice for discussion. Who chose it?" },
        { role: "user", text: `${person} did, and she's leading the discussion.`, answer: true },
      ],
      questions: [
        { kind: "direct", question: "What book is the book club reading next month?", answers: [0] },
        { kind: "context", question: "Who chose the book club's next book?", answers: [2] },
      ],
      distractors: [
        `I tried reading ${pick(r, BOOKS)} on the train but couldn't get into it.`,
        "Do you have tips for running a good book club discussion?",
      ],
    };
  },
  (r) => {
    const [sport, days] = [
      pick(r, SPORTS),
      pick(r, ["Mondays and Thursdays", "Tuesdays and Fridays", "every Wednesday"]),
    ];
    return {
      turns: [
        { role: "user", text: `I've taken up ${sport}; I go ${days} after work.`, answer: true },
        {
          role: "assistant",
          text: `Great habit. ${sport} twice a week builds strength quickly; remember rest days.`,
        },
      ],
      questions: [
        { kind: "direct", question: `Which days do I go ${sport}?` },
        { kind: "paraphrase", question: "What new sport did I start doing for exercise?" },
      ],
      distractors: [
        `My brother does ${pick(r, SPORTS)} competitively.`,
        "How many rest days should I take per week?",
      ],
    };
  },
  (r) => {
    const [person, month, d] = [pick(r, PEOPLE), pick(r, MONTHS), day(r)];
    return {
      turns: [
        {
          role: "user",
          text: `My sister ${person} is getting married on ${month} ${ordinal(d)} and I'm giving a speech.`,
          answer: true,
        },
        {
          role: "assistant",
          text: "What an honour. A good wedding toast is short: one story, one wish, and a raised glass.",
        },
      ],
      questions: [
        { kind: "time", question: "When is my sister's wedding?" },
        { kind: "paraphrase", question: `What is the date of ${person}'s marriage ceremony?` },
      ],
      distractors: [
        `We went to a wedding in ${pick(r, CITIES)} last year that rained the whole day.`,
        "How long should a speech be?",
      ],
    };
  },
  (r) => {
    const [amount, goal] = [
      pick(r, ["300", "450", "600", "250"]),
      pick(r, ["a house deposit", "a sabbatical", "a new roof"]),
    ];
    return {
      turns: [
        { role: "user", text: "I want to set up an automatic transfer into savings every payday." },
        { role: "assistant", text: "Good plan. How much are you thinking, and what is the money for?" },
        { role: "user", text: `${amount} a month, towards ${goal}.`, answer: true },
      ],
      questions: [
        { kind: "context", question: "How much do I put into savings each month?", answers: [2] },
        { kind: "paraphrase", question: "What am I saving up for?", answers: [2] },
      ],
      distractors: [
        "My bank charges a fee for every transfer over the limit.",
        "Should savings go into an index fund or stay in cash?",
      ],
    };
  },
  (r) => {
    const [framework, bug] = [
      pick(r, ["Django", "Rails", "Spring Boot", "Express"]),
      pick(r, ["timezone", "pagination", "caching", "encoding"]),
    ];
    return {
      turns: [
        { role: "user", text: `The ${bug} bug in our ${framework} app kept us up all night.` },
        { role: "assistant", text: "Did you find the root cause?" },
        {
          role: "user",
          text: `Yes: the load balancer stripped a header, so every request looked anonymous.`,
          answer: true,
        },
        { role: "assistant", text: "Classic. Worth adding a test that sends the request through the proxy." },
      ],
      questions: [
        { kind: "context", question: `What was the root cause of the ${bug} bug?`, answers: [2] },
        {
          kind: "multi",
          question: `How did the ${bug} issue in the ${framework} app get explained?`,
          answers: [0, 2],
        },
      ],
      distractors: [
        `The ${framework} upgrade broke two of our tests.`,
        `Any tips for debugging ${pick(r, ["timezone", "pagination", "caching", "encoding"])} problems?`,
      ],
    };
  },
  (r) => {
    const [person, gift] = [
      pick(r, PEOPLE),
      pick(r, [
        "a pottery class",
        "a vintage record player",
        "a hot-air balloon ride",
        "noise-cancelling headphones",
      ]),
    ];
    return {
      turns: [
        { role: "user", text: `For our anniversary I'm surprising ${person} with ${gift}.`, answer: true },
        {
          role: "assistant",
          text: "That's thoughtful. Experiences tend to be remembered longer than things.",
        },
      ],
      questions: [
        { kind: "direct", question: `What am I giving ${person} for our anniversary?` },
        { kind: "paraphrase", question: "What present did I plan for my partner?" },
      ],
      distractors: [
        `${person} hates surprises, or so she claims.`,
        "What are good anniversary ideas on a budget?",
      ],
    };
  },
  (r) => {
    const [tree, months] = [
      pick(r, ["lemon tree", "fig tree", "olive tree", "avocado plant"]),
      pick(r, ["two weeks", "ten days", "three weeks"]),
    ];
    return {
      turns: [
        { role: "user", text: `The ${tree} on the balcony has yellow leaves.` },
        {
          role: "assistant",
          text: "Usually that's overwatering or too little light. How often do you water it?",
        },
        { role: "user", text: "Every day, a full jug." },
        {
          role: "assistant",
          text:
            `That is likely too much; water only when the top soil is dry, roughly every ${months} in winter.`,
          answer: true,
        },
      ],
      questions: [
        { kind: "context", question: `How often did you tell me to water the ${tree}?`, answers: [3] },
        {
          kind: "multi",
          question: "What did we figure out about the plant's yellow leaves?",
          answers: [0, 3],
        },
      ],
      distractors: [
        `My mother's ${pick(r, ["lemon tree", "fig tree", "olive tree"])} produced loads of fruit this year.`,
        "Which houseplants do well in low light?",
      ],
    };
  },
  (r) => {
    const [city, hotel, nights] = [
      pick(r, CITIES),
      pick(r, ["Casa Azul", "Hotel Meridia", "The Linden", "Pension Adler"]),
      3 + Math.floor(r() * 5),
    ];
    return {
      turns: [
        { role: "user", text: `Booked the trip to ${city}: ${nights} nights.`, answer: true },
        { role: "assistant", text: "Great! Where are you staying?" },
        { role: "user", text: `${hotel}, near the old town.`, answer: true },
      ],
      questions: [
        { kind: "context", question: `Which hotel are we staying at in ${city}?`, answers: [2] },
        { kind: "multi", question: "What are the details of the holiday I booked?", answers: [0, 2] },
      ],
      distractors: [
        `A friend recommended a hostel in ${pick(r, CITIES)} but the reviews were mixed.`,
        "Is it cheaper to book hotels directly or through a site?",
      ],
    };
  },
  (r) => {
    const [person, med] = [
      pick(r, PEOPLE),
      pick(r, ["physiotherapy", "an MRI scan", "a hearing test", "a dental implant"]),
    ];
    const [month, d] = [pick(r, MONTHS), day(r)];
    return {
      turns: [
        {
          role: "user",
          text: `Dr ${person} referred me for ${med}; the appointment is ${month} ${ordinal(d)}.`,
          answer: true,
        },
        {
          role: "assistant",
          text: "Good that it's booked. Write down your questions beforehand so nothing gets forgotten.",
        },
      ],
      questions: [
        { kind: "time", question: `When is my appointment for ${med}?` },
        { kind: "paraphrase", question: "Which doctor sent me for further tests?" },
      ],
      distractors: [
        `The clinic rescheduled my ${pick(r, ["flu shot", "blood test", "eye exam"])} twice already.`,
        "How do I get a second medical opinion?",
      ],
    };
  },
];

/** Everyday chit-chat: themes with user openers and assistant replies that share the facts' words. */
const THEMES: Record<string, { user: string[]; assistant: string[] }> = {
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

const OPENERS = ["", "", "Quick question: ", "Another thing. ", "By the way, ", "Random one: "];
const USER_TAILS = [
  "",
  "",
  "",
  " It's been on my mind for a while.",
  " We don't have much time.",
  " Any ideas?",
];
const ASSISTANT_TAILS = [
  "",
  "",
  " Let me know if you want more detail.",
  " Happy to go deeper on any of this.",
  " It depends a bit on your situation, of course.",
];

const FOLLOW_UPS = [
  "That makes sense, thanks.",
  "Interesting, I hadn't thought of that.",
  "Good point, I'll try that this week.",
  "Hmm, I'm not sure that would work for us.",
  "Could you say a bit more about that?",
  "Okay, let me think about it.",
];

export interface SetOptions {
  chats: number;
  sessionsPerChat: number;
  turnsPerSession: number;
  factsPerChat: number;
  seed: number;
}

export const DEFAULT_SET: SetOptions = {
  chats: 20,
  sessionsPerChat: 12,
  turnsPerSession: 36,
  factsPerChat: 14,
  seed: 25,
};

export function conversationSet(options: SetOptions = DEFAULT_SET): ConversationSet {
  const r = rng(options.seed);
  const chats: Chat[] = [];
  const questions: Question[] = [];
  for (let c = 0; c < options.chats; c++) {
    const chatId = `c${String(c).padStart(2, "0")}`;
    const fill = (s: string) =>
      s.replaceAll("{city}", pick(r, CITIES)).replaceAll("{month}", pick(r, MONTHS));
    // Slots: each session is a list of blocks (fact blocks and single chit-chat turns).
    const facts = shuffle(r, FACTS.map((_, i) => i)).slice(0, options.factsPerChat).map((i) => FACTS[i]!(r));
    const sessionsBlocks: FactTurn[][][] = [];
    for (let s = 0; s < options.sessionsPerChat; s++) {
      const theme = pick(r, Object.keys(THEMES));
      const blocks: FactTurn[][] = [];
      const { user, assistant } = THEMES[theme]!;
      for (let t = 0; t < options.turnsPerSession; t += 2) {
        const i = Math.floor(r() * user.length);
        const extra = r() < 0.4 ? ` ${pick(r, assistant)}` : "";
        const ask = `${pick(r, OPENERS)}${fill(user[i]!)}${pick(r, USER_TAILS)}`;
        const reply = `${fill(assistant[i]!)}${fill(extra)}${pick(r, ASSISTANT_TAILS)}`;
        blocks.push([{ role: "user", text: ask }, { role: "assistant", text: reply }]);
        if (r() < 0.25) blocks.push([{ role: "user", text: pick(r, FOLLOW_UPS) }]);
      }
      sessionsBlocks.push(blocks);
    }
    const placed: { fact: Fact; session: number; block: FactTurn[] }[] = [];
    for (const fact of facts) {
      const s = Math.floor(r() * options.sessionsPerChat);
      const block = fact.turns.map((t) => ({ ...t }));
      const blocks = sessionsBlocks[s]!;
      blocks.splice(Math.floor(r() * (blocks.length + 1)), 0, block);
      placed.push({ fact, session: s, block });
      for (const d of fact.distractors) {
        const ds = sessionsBlocks[Math.floor(r() * options.sessionsPerChat)]!;
        ds.splice(Math.floor(r() * (ds.length + 1)), 0, [{ role: "user", text: d }]);
      }
    }
    // Number the turns; identical texts within a chat get a varied tail (a memory store dedupes them).
    const seen = new Set<string>();
    const keyOf = new Map<FactTurn, string>();
    const sessions: Session[] = sessionsBlocks.map((blocks, s) => {
      const turns: Turn[] = [];
      for (const block of blocks) {
        for (const t of block) {
          let text = t.text;
          for (let n = 2; seen.has(text); n++) {
            text = `${t.text} (${pick(r, ["again", "still", "really"])} ${n})`;
          }
          seen.add(text);
          const key = `${chatId}-s${String(s).padStart(2, "0")}-t${String(turns.length).padStart(3, "0")}`;
          keyOf.set(t, key);
          turns.push({ key, role: t.role, text });
        }
      }
      const date = new Date(Date.UTC(2025, 0, 6 + s * 9)).toISOString().slice(0, 10);
      return { id: `${chatId}-s${String(s).padStart(2, "0")}`, date, turns };
    });
    for (const { fact, block } of placed) {
      for (const q of fact.questions) {
        const idx = q.answers ?? block.flatMap((t, i) => (t.answer ? [i] : []));
        questions.push({
          chat: chatId,
          kind: q.kind,
          question: q.question,
          answers: idx.map((i) => keyOf.get(block[i]!)!),
        });
      }
    }
    chats.push({ id: chatId, sessions });
  }
  return { chats, questions };
}

if (import.meta.main) {
  const set = conversationSet();
  const turns = set.chats.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
  const kinds = Object.groupBy(set.questions, (q) => q.kind);
  console.log(
    `${set.chats.length} chats, ${turns} turns (min per chat ${
      Math.min(...set.chats.map((c) => c.sessions.reduce((m, s) => m + s.turns.length, 0)))
    }), ${set.questions.length} questions:`,
    Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v!.length])),
  );
  console.log(JSON.stringify(set.chats[0]!.sessions[0]!.turns.slice(0, 12), null, 1));
  console.log(JSON.stringify(set.questions.slice(0, 5), null, 1));
}

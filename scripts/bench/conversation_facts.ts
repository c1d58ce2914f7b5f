/**
 * The personal facts of the conversational recall set (conversations.ts): the word lists they draw
 * their details from and the fact makers, each returning its turns, questions and near misses.
 */
import type { QuestionKind } from "./conversations.ts";

export type Rand = () => number;
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
export const shuffle = <T>(r: Rand, xs: T[]): T[] => {
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
export const CITIES = [
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
export const MONTHS = [
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

export interface FactTurn {
  role: "user" | "assistant";
  text: string;
  /** Labelled as answering this fact's questions. */
  answer?: boolean;
}

export interface Fact {
  turns: FactTurn[];
  /** Questions over those turns; `answers` are indices into `turns` (default: every answer turn). */
  questions: { kind: QuestionKind; question: string; answers?: number[] }[];
  /** Near-miss turns to scatter elsewhere in the chat. */
  distractors: string[];
}

/** Fact makers: each draws its details and returns the turns, the questions and the near misses. */
export const FACTS: ((r: Rand) => Fact)[] = [
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

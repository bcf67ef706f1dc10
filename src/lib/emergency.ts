// Emergency wording in every patient free text (messages, journal notes, side-effect reports,
// questionnaire text answers, connector inputs) in the seven locales (docs/red-flags.md). A match does
// not block anything: the text is still delivered, flagged for the medical team, and the patient is
// shown the emergency number of their country (spec 1: the service is not an emergency service).
//
// Design (docs/messages.md, "Emergency wording"):
// - Pure and deterministic: no I/O, no dependency; the text is normalised (lower case, accents,
//   ligatures and ß folded, English contractions joined: "can't" -> "cant", other apostrophes and
//   punctuation -> one space), then matched against regular expressions on word boundaries.
// - Every locale's table is always applied, whatever the patient's locale: patients mix languages.
// - Stems and compounds ("suizid\w*" catches Suizidgedanken, suizidal, suicidaire, suicidio...), the
//   accent-free spellings patients type, common misspellings ("cant breath", "sucidal", "pyn").
// - Negation and past history are read per clause and sentence (see "negation and past history"
//   below): "No chest pain" raises nothing; "I had chest pain last year" is past history, shown to
//   the team without the emergency notice. Negation words that are part of the emergency ("keine
//   Luft", "can't breathe", "no puedo respirar") are inside the pattern, so they still raise it.
//   Benign look-alikes are avoided by the patterns themselves: "kill myself" but not "kill for a
//   coffee"; "chest" only with pain words; "benauwd" but not "benauwd weer"; "faint" only as a verb;
//   "heart attack" only in the first person present.
// - Each match names its category, so a caller can flag by category. The categories are the general
//   red flags of spec 1 plus the side-effect red flags of the clinical facts, each with its source.
//
// Corpus results (test/fixtures/emergency-corpus.json and the held-out emergency-heldout.json) are
// printed by `npm run emergency-report` and asserted in test/emergency-detector.test.ts.
import { isLocale, LOCALES, type Locale } from './locales.ts';
import { countryByCode, crisisLinesFor, emergencyNumberFor } from './countries.ts';
import { EXTRA_RULES } from './emergency-rules.ts';
import { lexiconHits } from './emergency-lexicon.ts';
import { MODEL, modelHits, type ModelWeights } from './emergency-model.ts';

// The taxonomy's classes (the shared red-flag taxonomy; docs/red-flags.md "Classes and sources"):
// ids are fixed contracts with the corpora, the desk and the clients.
export const EMERGENCY_CATEGORIES = [
  'chest_pain',
  'stroke',
  'breathing',
  'anaphylaxis',
  'sepsis',
  'meningitis',
  'seizure',
  'fainting',
  'overdose',
  'suicidal',
  'self_harm',
  'heavy_bleeding',
  'ectopic_pregnancy',
  'priapism',
  'sudden_vision_or_hearing_loss',
  'testicular_pain',
  'pancreatitis',
  'severe_skin_reaction',
  'serotonin_syndrome',
  'hypoglycaemia',
  'thrombosis',
  'gallbladder',
  'dehydration',
  'kidney_infection',
  'liver',
] as const;
export type EmergencyCategory = (typeof EMERGENCY_CATEGORIES)[number];

/**
 * emergency: life-threatening now, the emergency notice ("call 112 now"); urgent: a doctor today,
 * the country's out-of-hours number and a desk flag with a deadline (docs/red-flags.md "Tiers").
 */
export type RedFlagTier = 'emergency' | 'urgent';
export const URGENT_CATEGORIES: ReadonlySet<EmergencyCategory> = new Set(['gallbladder', 'dehydration', 'kidney_infection', 'liver']);
export const tierOf = (c: EmergencyCategory): RedFlagTier => (URGENT_CATEGORIES.has(c) ? 'urgent' : 'emergency');
/** Classes whose answer also names the country's crisis line (116 123 where it exists). */
export const CRISIS_CATEGORIES: ReadonlySet<EmergencyCategory> = new Set(['suicidal', 'self_harm']);

/** Source of each category: the spec, a code of shared/guide/clinical-facts.md, or the guidance named in docs/red-flags.md. */
export const CATEGORY_SOURCES: Record<EmergencyCategory, string> = {
  chest_pain: 'spec 1 (severe or sudden symptoms: chest pain); NHS "when to call 999" (chest pain, pressure, to arm/jaw); sildenafil/tadalafil EMA leaflet 2 (chest pain during or after sex: stop, get medical help)',
  stroke: 'NHS "when to call 999" and the Stroke Association BE-FAST signs (face, arms, speech, sudden confusion, balance, vision, worst headache)',
  breathing: 'spec 1 (difficulty breathing); NHS "when to call 999" (struggling to breathe, choking, blue lips)',
  anaphylaxis: 'spec 1 (severe allergic reaction); hypersensitivity S1; Resuscitation Council UK / ERC anaphylaxis (swelling of face, lips, tongue, throat; hives with breathing difficulty or faintness); every catalogue leaflet section 4',
  sepsis: 'NICE NG51 sepsis (high-risk criteria: new confusion, mottled or ashen skin, fast breathing, no urine for 18 h, rigors); UK Sepsis Trust "never felt this ill"; U1b (urosepsis)',
  meningitis: 'NICE NG240 meningitis (fever, headache, stiff neck, photophobia, non-blanching rash: the glass test)',
  seizure: 'NHS "when to call 999" (seizure or fit, someone not waking up); ERC first aid (seizures)',
  fainting: 'P2 (fainting or its warning signs); NHS "when to call 999" (unconscious, collapse, will not wake up)',
  overdose: 'clinical facts, additions ("overdose of any medicine"); NHS "when to call 999" (poisoning, overdose); semaglutide/liraglutide/tirzepatide leaflets 3 ("if you use more than you should"); dapoxetine leaflet 3',
  suicidal: 'spec 1 (suicidal thoughts); finasteride mood change or suicidal thoughts H2; NICE NG225 self-harm and suicide-prevention guidance (indirect cues: saving pills, goodbye letters)',
  self_harm: 'NICE NG225 (self-harm: assessment the same day); Samaritans / national crisis lines (116 123)',
  heavy_bleeding: 'C5 (intermenstrual or postcoital bleeding), EC1, EC2; NHS "when to call 999" (severe bleeding that will not stop, vomiting or coughing blood)',
  ectopic_pregnancy: 'EC1, EC2 (suspected ectopic pregnancy: pregnancy with abdominal pain or bleeding), C5b (pregnancy with pelvic pain); levonorgestrel/ulipristal leaflets (severe lower abdominal pain after EC)',
  priapism: 'E4 (erection lasting more than 4 hours: emergency care); sildenafil/tadalafil leaflets 4',
  sudden_vision_or_hearing_loss: 'E4 (sudden loss of vision or hearing); sildenafil/tadalafil leaflets 4 (NAION, sudden deafness)',
  testicular_pain: 'C5b (possible testicular torsion: red-flag pathway); NHS "sudden testicle pain: go to A&E"',
  pancreatitis: 'S1 (pancreatitis on GLP-1 treatment); semaglutide/liraglutide/tirzepatide leaflets 4 ("severe, persistent stomach pain, may reach your back, with or without vomiting")',
  severe_skin_reaction: 'SmPC 4.8 / leaflets of doxycycline, azithromycin, nitrofurantoin, fosfomycin, emtricitabine/tenofovir (SJS/TEN, DRESS: blistering, peeling, mouth/eye/genital sores, widespread rash with fever)',
  serotonin_syndrome: 'dapoxetine (Priligy) SmPC 4.4/4.5 and leaflet 2 (serotonergic medicines); Hunter criteria (agitation, sweating, tremor, clonus, hyperthermia)',
  hypoglycaemia: 'semaglutide/liraglutide/tirzepatide leaflets 2 and 4 (low blood sugar with a sulfonylurea or insulin); NHS hypoglycaemia (shaking, sweating, confusion, fainting)',
  thrombosis: 'combined hormonal contraception leaflets (EMA PRAC 2014: signs of a blood clot in the leg or lungs); NHS DVT/PE (one swollen painful calf, sudden breathlessness, chest pain on breathing)',
  gallbladder: 'semaglutide/liraglutide/tirzepatide SmPC 4.8 and leaflet 4 (cholelithiasis, cholecystitis: pain in the upper right belly, fever, yellow skin or eyes)',
  dehydration: 'S1 (GLP-1: dehydration, deterioration of renal function); semaglutide/tirzepatide leaflets 2 (drink plenty of fluids when vomiting or diarrhoea)',
  kidney_infection: 'U2, U1b (kidney infection: loin/flank pain with fever or rigors -> urgent care; sepsis signs -> emergency number)',
  liver: 'nitrofurantoin SmPC 4.4/4.8 (hepatic reactions: jaundice, dark urine, pale stools); doxycycline, azithromycin SmPC 4.8 (hepatotoxicity)',
};

export const DETECTOR_LOCALES = LOCALES;
export type DetectorLocale = (typeof DETECTOR_LOCALES)[number] | 'all';

interface Rule {
  category: EmergencyCategory;
  /** Regular-expression source over the normalised text (a-z, 0-9, single spaces); wrapped in word boundaries. */
  re: string;
}
const r = (category: EmergencyCategory, ...res: string[]): Rule[] => res.map((re) => ({ category, re }));

// Hour counts that reach the priapism threshold (more than 4 hours [E4]); 4 itself is included.
const HOURS = {
  en: '(?:[4-9]|[1-9]\\d|four|five|six|seven|eight|nine|ten|twelve|several|many)',
  de: '(?:[4-9]|[1-9]\\d|vier|funf|fuenf|sechs|sieben|acht|neun|zehn|mehreren|mehrere|vielen)',
  es: '(?:[4-9]|[1-9]\\d|cuatro|cinco|seis|siete|ocho|nueve|diez|varias|muchas)',
  fr: '(?:[4-9]|[1-9]\\d|quatre|cinq|six|sept|huit|neuf|dix|plusieurs)',
  it: '(?:[4-9]|[1-9]\\d|quattro|cinque|sei|sette|otto|nove|dieci|diverse|molte)',
  nl: '(?:[4-9]|[1-9]\\d|vier|vijf|zes|zeven|acht|negen|tien|meerdere|een paar)',
  pt: '(?:[4-9]|[1-9]\\d|quatro|cinco|seis|sete|oito|nove|dez|varias|muitas)',
};
const W = '(?:\\w+ )'; // one word and its space, used as W{0,n} for "up to n words between"

const BASE_RULES: Record<DetectorLocale, Rule[]> = {
  // Stems shared by several languages.
  all: [
    // suicid-, suizid-, suicid- with the usual misspellings (sucidal, suisid, suecide): all locales.
    ...r('suicidal', 'su[ie]?[csz]{1,2}id\\w*'),
    // anaphylaxis / anaphylactic / anafilaxia / anafilassi / anafylaxie / anaphylaktisch.
    ...r('anaphylaxis', 'ana(?:ph|f)[iy]la\\w*', 'quincke\\w*', 'epi ?pen\\w*'),
    // pancreatitis / Pankreatitis / pancreatite.
    ...r('pancreatitis', 'pan[ck]reati\\w*'),
    // priapism / Priapismus / priapisme / priapismo.
    ...r('priapism', 'priapi\\w*'),
    // Fainting, and other sudden loss of consciousness (seizures: convulsion, convulsiones, convulsioni, convulsies).
    ...r('fainting', 'syncope\\w*', 'synkope\\w*', 'sincope\\w*', 'convuls\\w*'),
    // Overdose, ectopic pregnancy, pyelonephritis, haemorrhage and torsion stems shared by several languages.
    ...r('kidney_infection', 'pi?yelo ?nephrit\\w*', 'pielo ?nefrit\\w*', 'urosep\\w*'),
    ...r('ectopic_pregnancy', 'ecto?pi\\w*', 'extra ?uterin\\w*'),
    ...r('heavy_bleeding', 'h?a?emorr?h?ag\\w*'),
  ],
  en: [
    ...r('chest_pain',
      'chest ?(?:pains?|pian|ache|aches|hurts?|hurting|tightness|pressure|discomfort)', // chest pain, chestpain, chest pian
      `pains? in ${W}{0,1}(?:(?:my|the) )?chest`, '(?:sitting|pressing|pushing|weight) on (?:my|the) chest',
      `chest (?:is |feels |has been |keeps )?${W}{0,2}(?:hurts|hurting|painful|sore|tight|heavy|burning|crushing|squeezing)`,
      `(?:tight|tightness|pressure|crushing|squeezing|heaviness|heavy|sharp|stabbing|burning) ${W}{0,3}(?:in|on|across|around) (?:my|the) chest`,
      '(?:im|i am) having a heart ?attack', 'think (?:im|i am|its|it is|i m) (?:having )?a heart ?attack', 'heart ?attack right now'),
    ...r('breathing',
      // "can't breathe" / "i cant breath" / "cannot breathe", but not "can't breathe through my nose" (a cold).
      `(?:cant|cnat|cannot|can not|couldnt|could not|unable to) ${W}{0,2}(?:breathe?|brethe|breth)\\b(?! (?:through|thru|out of|with) (?:my|the) nose\\b)`,
      '(?:cant|cannot|can not|couldnt|could not) (?:catch|get) (?:my |enough )?(?:breath|air)',
      'short(?:ness|nes)? of bre\\w*', '(?:can|could) (?:hardly|barely|scarcely) (?:breathe?|breath)',
      `(?:difficulty|difficulties|trouble|problems?|struggling|struggle|hard|harder|barely able) ${W}{0,1}(?:breathing|to breathe?)`,
      'breathless\\w*', '(?:gasping|gasp) for (?:air|breath)', '(?:not|stopped) breathing', 'suffocat\\w*'),
    ...r('anaphylaxis',
      'allergic shock',
      '(?:severe|serious|bad|strong|major|massive|huge) allergic reaction',
      `allergic reaction ${W}{0,6}(?:swell\\w*|swollen|breath\\w*|throat)`,
      `(?:throat|tongue|lips?|face|mouth) (?:is |are |feels |has |have |keeps )?${W}{0,4}(?:swell\\w*|swollen|closing)`,
      'swollen (?:throat|tongue|lips?|face)', 'swelling (?:of|in) (?:my|the) (?:throat|tongue|lips?|face)', 'adrenaline (?:pen|injector|shot)'),
    ...r('suicidal',
      'kill?(?:ing)? myself', 'self ?harm\\w*', 'hurting myself on purpose',
      `(?:want|wanna|going|gonna|planning|plan|thinking|think|thought|thoughts) ${W}{0,3}(?:hurt|harm|hurting|harming) myself`,
      'end(?:ing)? (?:my|it) (?:own )?life', 'end it (?:all|tonight|today|now)',
      '(?:no|dont see the|do not see the|see no|dont see any|do not see any) point (?:in )?(?:living|going on|carrying on|being alive)',
      `(?:overdos(?:e|ed|ing)) ${W}{0,3}on purpose`, `(?:taken|took|swallowed|take|swallow) (?:all|a whole|the whole|every) ${W}{0,1}(?:my |the )?(?:pills|tablets|pack|box)`, 'tak(?:e|ing) my (?:own )?life',
      `(?:want|wanna|wish|wishing|ready) ${W}{0,2}(?:to )?die\\b`, 'better off dead', 'no reason to live',
      `(?:dont|do not|no longer) want to (?:be alive|live|be here|exist)`),
    ...r('pancreatitis',
      // Abdominal pain going to the back (with or without vomiting) or described as severe.
      '(?:stomach|abdominal|abdomen|belly|tummy)\\b.{0,80}\\b(?:to|into|through|towards?|in) (?:my|the) back',
      `(?:severe|extreme|unbearable|excruciating|terrible|horrible|intense|agonising|agonizing|awful|worst) ${W}{0,4}(?:stomach|abdominal|abdomen|belly|tummy)`,
      `(?:stomach|abdominal|belly|tummy) (?:pain|ache) ${W}{0,2}(?:severe|unbearable|excruciating)`),
    ...r('priapism',
      `erection\\w*\\b.{0,50}\\b${HOURS.en} ?(?:hours?|hrs?|h)\\b`,
      `${HOURS.en} ?(?:hours?|hrs?|h) ${W}{0,3}erection`,
      `erection ${W}{0,3}(?:wont|will not|doesnt|does not|isnt|is not|not) (?:go(?:ing)? (?:away|down)|subsid\\w*)`,
      `erection ${W}{0,4}(?:since|all) (?:last night|yesterday|the whole night|night)`),
    ...r('sudden_vision_or_hearing_loss',
      `(?:sudden|suddenly) ${W}{0,3}(?:lost|losing|loss of|lose) (?:my |the )?${W}{0,1}(?:vision|sight|eyesight|hearing)`,
      '(?:vision|sight|eyesight) loss', `(?:vision|sight) ${W}{0,1}(?:went|gone|goes|going|turned) (?:black|dark|blank)`, 'loss of (?:vision|sight|eyesight)', '(?:lost|losing) (?:my |the )?(?:vision|sight|eyesight)',
      `(?:sudden|suddenly) ${W}{0,2}(?:deaf\\w*|hearing loss|blind\\w*)`, '(?:vision|sight|eyesight) (?:is |has |just )?(?:gone|disappeared)', '(?:went|gone|going|go) (?:blind|deaf)',
      `blind in ${W}{0,2}eye`, '(?:cant|cannot|can not|couldnt|could not) see (?:anything|a thing|out of|with (?:my|one)|from (?:my|one))'),
    ...r('fainting',
      'faint(?:ed|ing)', '(?:feel|feeling|felt|going to|gonna|about to|almost|nearly|might|i) faint', 'pass(?:ed|ing)? out\\b(?! (?:the|a|some|these|those|flyers|leaflets|papers)\\b)',
      'blacked out', 'blacking out', 'i black out', '(?:lost|losing|lose|loss of) consciousness', 'unconscious\\w*',
      'i collapsed', 'collapsed (?:at|in|on|while)', 'keeled over', 'seizures?'),
    ...r('testicular_pain',
      `test[ie]c\\w* ${W}{0,2}(?:pain|pains|ache|aching|hurts?|hurting|swollen|swelling|swell\\w*|torsion|twisted|agony)`,
      `(?:pain|ache|swelling|agony) ${W}{0,1}in (?:my |one |the )?(?:left |right )?(?:test[ie]c\\w*|balls?|nuts?|scrotum)`,
      `(?:balls?|nuts?|scrotum) (?:is |are |feels |feel )?${W}{0,2}(?:killing me|swollen|swelling|hurts?|hurting|painful|sore)`,
      `swollen (?:left |right )?(?:test[ie]c\\w*|balls?|nut|scrotum)`, 'scrotal (?:pain|swelling)'),
    ...r('kidney_infection',
      '(?:fever|temperature|temp|chills|shivering|shaking|rigou?rs)\\b.{0,80}\\b(?:flank|kidneys?|loin|(?:lower )?back (?:pain|hurts|ache)|pain in (?:my |the )?(?:side|back|lower back)|side (?:pain|hurts))',
      '(?:flank|kidneys?|loin|lower back|side) ?(?:pain|ache|hurts?|hurting)\\b.{0,80}\\b(?:fever|temperature|temp|chills|shivering|shaking|rigou?rs)',
      'kidney infection'),
    ...r('heavy_bleeding',
      `(?:heavy|heavily|massive|lots of|very heavy|really heavy|a lot of) ${W}{0,1}(?:bleed\\w*|blood loss|blood)`, `bleed\\w* ${W}{0,1}(?:heavily|a lot|so much|very heavily|like crazy|non ?stop)`,
      `(?:soak|soaking|soaked|filling|going through) ${W}{0,3}(?:pad|pads|tampon|tampons) ${W}{0,2}(?:every|an|each|per|in an|in one) (?:hour|hr)`,
      `(?:cant|cannot|can not|wont|will not) stop ${W}{0,1}bleeding`, `bleeding (?:wont|will not|doesnt|does not|isnt) ${W}{0,1}stop\\w*`, 'losing (?:a lot of|lots of|so much) blood'),
    ...r('ectopic_pregnancy',
      `(?:pregnant|pregnancy test (?:is |was )?positive|positive ${W}{0,1}(?:pregnancy )?test)\\b.{0,80}\\b(?:pain|cramp\\w*|bleed\\w*|spotting)`,
      `(?:pain|cramps?) ${W}{0,3}(?:one side|one sided|left side|right side)\\b.{0,80}\\b(?:pregnant|positive ${W}{0,1}test|period (?:is )?late|late period|missed (?:my )?period)`),
    ...r('overdose',
      `(?:overdosed|overdosing|took an overdose|taken an overdose|had an overdose)`,
      `(?:took|taken|take|injected|inject|swallowed|used|did) ${W}{0,1}(?:\\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|several|many|too many|all|double|triple) ${W}{0,1}(?:pens?|pills|tablets|doses|injections|shots|syringes|jabs) ${W}{0,1}(?:at once|in one go|together|at the same time|in one day|today)`,
      `(?:too many|way too many|loads of|a whole handful of) ${W}{0,1}(?:pills|tablets|pens|injections|doses)`),
    ...r('suicidal', 'end(?:ing)? it all', '(?:cant|cannot|can not) go on (?:anymore|any more|like this)', '(?:dont|do not) want to wake up'),
    ...r('priapism',
      `(?:still|been|stayed|staying|rock) hard ${W}{0,3}${HOURS.en} ?(?:hours?|hrs?|h)\\b`, `${HOURS.en} ?(?:hours?|hrs?|h) ${W}{0,3}(?:still|and still) hard`),
  ],
  de: [
    ...r('chest_pain',
      '\\w*brust(?:korb)?schmerz\\w*', 'brustenge',
      `(?:schmerz\\w*|stech\\w*|sticht|druck\\w*|enge?\\w*|brenn\\w*|ziehen) ${W}{0,3}(?:in der|in meiner|auf der|auf meiner|im|an der) brust(?:korb|bein)?`,
      `brust(?:korb)? ${W}{0,2}(?:schmerzt|sticht|druckt|brennt|tut ${W}{0,1}weh)`,
      `(?:ich habe|ich hab|habe ich|hab ich|bekomme|kriege) ${W}{0,2}(?:einen )?herzinfarkt`, 'angina pectoris'),
    ...r('breathing',
      '\\w*(?:atemnot|luftnot)\\w*', 'atem(?:beschwerden|probleme?|stillstand)', 'kurzatmig\\w*',
      `(?:nicht|kaum|schlecht|schwer) ${W}{0,2}(?:atmen|luft holen)`,
      `(?:bekomme|bekomm|kriege|krieg|habe|hab) ${W}{0,2}(?:keine|kaum|schlecht|wenig) ${W}{0,1}luft`,
      'keine luft (?:mehr|bekommen|kriegen)', `bleibt ${W}{0,2}(?:die )?luft weg`, '(?:ringe|ringen|schnappe|schnappen) nach (?:luft|atem)',
      'erstick(?:e|en|t)', `atme ${W}{0,1}(?:schwer|schlecht|kaum)`),
    ...r('anaphylaxis',
      'allergische\\w* schock', '(?:schwere|starke|heftige|schlimme)\\w* allergische\\w* reaktion',
      `(?:zunge|lippen?|hals|gesicht|rachen|kehle|mund)\\w* ${W}{0,3}(?:schwill\\w*|schwell\\w*|geschwollen\\w*|angeschwollen\\w*)`,
      `(?:geschwollen\\w*|angeschwollen\\w*) ${W}{0,2}(?:zunge|lippen?|hals|gesicht|rachen)`,
      '\\w*(?:zungen|lippen|hals|rachen|gesichts)schwellung\\w*', 'adrenalin ?pen', 'notfallset'),
    ...r('suicidal',
      'selbstmord\\w*', 'selbsttotung\\w*', 'lebensmude\\w*', 'lebensmuede\\w*',
      `(?:mich|mir) ${W}{0,3}(?:umbringen|umzubringen|toten|totzuschlagen|das leben (?:zu )?nehmen|etwas (?:an)?(?:zu)?tun|etwas antun|was antun)`,
      `(?:will|mochte|moechte|mag|kann) ${W}{0,2}nicht mehr leben`,
      `(?:will|mochte|moechte|wunschte|wuenschte) ${W}{0,2}(?:sterben|tot sein)`, 'keine lust mehr (?:zu leben|auf das leben|auf leben)', 'ich (?:will|mag) (?:einfach |echt |wirklich )?nicht mehr(?= $)', 'selbstverletz\\w*', 'ritze mich', `mich ${W}{0,2}geritzt`),
    ...r('pancreatitis',
      'bauchspeicheldrusenentzundung\\w*', 'bauchspeicheldruesenentzuendung\\w*',
      '\\w*(?:bauch|magen)\\w*(?:schmerz|weh)\\w*.{0,80}\\br(?:u|ue)cken', `\\w*(?:bauch|magen) ${W}{0,3}(?:tut|schmerzt)\\b.{0,80}\\br(?:u|ue)cken`,
      '(?:bauch|magen) (?:tut|schmerzt) (?:extrem|sehr|so|furchtbar|hollisch|hoellisch|unertraglich|unertraeglich) (?:stark )?(?:weh)?',
      `(?:schmerz\\w*) ${W}{0,4}(?:im|in den|in meinem) \\w*(?:bauch|magen)\\w*.{0,80}\\br(?:u|ue)cken`,
      `(?:starke|heftige|extreme|unertragliche|unertraegliche|schlimme|krasse|massive|furchtbare|hollische|hoellische)\\w* ${W}{0,1}\\w*(?:bauch|magen)\\w*(?:schmerz|weh)\\w*`),
    ...r('priapism',
      'dauererektion\\w*', `erektion\\w*\\b.{0,50}\\b${HOURS.de} stunden`,
      `erektion\\w* ${W}{0,3}(?:geht|will|lasst|laesst|verschwindet) ${W}{0,2}nicht (?:mehr )?(?:weg|zuruck|zurueck|nach)`,
      `erektion\\w* ${W}{0,3}seit (?:gestern|heute nacht|der nacht|letzter nacht)`),
    ...r('sudden_vision_or_hearing_loss',
      'sehverlust\\w*', 'erblind\\w*', 'horsturz', 'hoersturz',
      '(?:sehe|seh|sah)\\b.{0,60}\\b(?:nichts mehr|gar nichts)', `(?:auf|an) (?:einem|dem \\w+) (?:auge|ohr) ${W}{0,2}(?:blind|taub|nichts)`,
      `(?:plotzlich\\w*|ploetzlich\\w*|schlagartig) ${W}{0,2}(?:horverlust|hoerverlust|sehverlust|taub|blind)`, '(?:hore|hoere)\\b.{0,40}\\bnichts mehr'),
    ...r('fainting',
      'ohnmacht\\w*\\b(?! (?:gegenuber|gegen|gegenueber)\\b)', 'bewusstlos\\w*', 'kreislaufkollaps', 'krampfanfall\\w*', 'schwarz vor (?:den )?augen',
      `(?:bin|war|wurde) ${W}{0,4}(?:umgekippt|zusammengebrochen|kollabiert|zusammengeklappt|weggetreten)`),
    ...r('testicular_pain',
      '\\w*hoden\\w*(?:schmerz|weh|schwellung|torsion)\\w*', `hoden ${W}{0,3}(?:tut|tun|schmerzt|schmerzen|ist|sind) ${W}{0,4}(?:weh|geschwollen|dick|angeschwollen)`,
      `(?:schmerz\\w*|stech\\w*) ${W}{0,2}(?:im|in den|in meinem|am) (?:linken |rechten )?hoden`, `(?:geschwollen|angeschwollen|dick)\\w* ${W}{0,1}hoden`),
    ...r('kidney_infection',
      '(?:\\w*fieber\\w*|schuttelfrost|schuettelfrost)\\b.{0,80}\\b(?:flanke\\w*|nieren?\\w*|r(?:u|ue)cken ?schmerz\\w*|(?:im|in den) r(?:u|ue)cken)',
      '(?:flanken?\\w*|nieren?\\w*|r(?:u|ue)cken)schmerz\\w*\\b.{0,80}\\b(?:\\w*fieber\\w*|schuttelfrost|schuettelfrost)', 'nierenbeckenentz(?:u|ue)ndung\\w*'),
    ...r('heavy_bleeding',
      `(?:starke|heftige|sehr starke|massive|extreme)\\w* ${W}{0,1}blutung\\w*`, `blute ${W}{0,1}(?:stark|sehr stark|extrem|heftig|wie verruckt)`, `blutung ${W}{0,2}(?:hort|hoert) ${W}{0,1}nicht (?:mehr )?auf`,
      `(?:verliere|verlier) ${W}{0,1}(?:viel|sehr viel) blut`, `(?:jede|alle) stunde ${W}{0,2}(?:binde|tampon|vorlage)`),
    ...r('ectopic_pregnancy',
      `(?:schwanger|schwangerschaftstest ${W}{0,1}positiv|positive\\w* ${W}{0,1}(?:schwangerschafts)?test)\\b.{0,80}\\b(?:\\w*schmerz\\w*|kramp\\w*|blut\\w*|tut ${W}{0,1}weh)`, 'eileiterschwangerschaft\\w*'),
    ...r('overdose',
      `(?:uberdosis|ueberdosis) ${W}{0,1}(?:genommen|gespritzt|geschluckt|erwischt)`, '(?:uberdosiert|ueberdosiert)', `(?:\\d+|zwei|drei|vier|funf|fuenf|sechs|sieben|acht|neun|zehn|alle|mehrere) ${W}{0,1}(?:pens?|spritzen|tabletten|pillen|dosen) ${W}{0,2}(?:auf einmal|gleichzeitig|zusammen|aufs mal)`,
      `zu viele ${W}{0,1}(?:tabletten|pillen|spritzen)`),
    ...r('suicidal', `(?:alles|allem) ${W}{0,1}(?:beenden|ein ende (?:zu )?setzen)`, `nicht mehr aufwachen`),
    ...r('priapism', `(?:steif|hart)\\w* ${W}{0,2}seit ${HOURS.de} stunden`, `seit ${HOURS.de} stunden ${W}{0,3}(?:steif|hart|erektion)\\w*`),
  ],
  es: [
    ...r('chest_pain',
      `dolor\\w* ${W}{0,2}(?:en el|de|del|al) pecho`, 'dolor\\w* toracic\\w*',
      `(?:me )?duele ${W}{0,2}(?:el )?pecho`, 'pecho (?:me )?duele',
      `(?:opresion|presion|peso|punzada\\w*|ardor) ${W}{0,3}(?:en el|del|sobre el) pecho`,
      `(?:dando|da|tengo|teniendo) ${W}{0,1}(?:un )?(?:infarto|ataque al corazon)`),
    ...r('breathing',
      'falta de aire', '(?:me )?falta (?:el |la )?(?:aire|respiracion|aliento)', `(?:no puedo|no consigo|no logro|apenas puedo) ${W}{0,1}respirar`,
      `(?:dificultad\\w*|problemas?|me cuesta|cuesta) ${W}{0,2}(?:para |al |a )?respirar`,
      'me ahogo', 'ahogando\\w*', 'asfixi\\w*', 'sin aliento', 'no me entra (?:el )?aire', 'disnea'),
    ...r('anaphylaxis',
      `reaccion\\w* alergic\\w* ${W}{0,1}(?:grave|severa|fuerte|seria)`,
      `(?:hincha\\w*|inflama\\w*|cierra|cerrando) ${W}{0,2}(?:la garganta|la lengua|los labios|la cara)`,
      `(?:garganta|lengua|labios|cara) ${W}{0,2}(?:hinchad[ao]s?|inflamad[ao]s?|cerrando|se cierra)`),
    ...r('suicidal',
      'matarme', 'quitarme la vida', '(?:acabar|terminar) con mi vida', `(?:quiero|quisiera|deseo) ${W}{0,2}morir\\w*`,
      `no quiero ${W}{0,2}viv(?:ir|iendo)`, 'ganas de morir\\w*', '(?:sin|no tengo|no tengo mas) ganas de vivir', 'quiero desaparecer', 'hacerme dano', 'autolesion\\w*'),
    ...r('pancreatitis',
      `dolor\\w* ${W}{0,2}(?:abdominal\\w*|de (?:estomago|barriga|tripa|panza|vientre)|en (?:el|la) (?:abdomen|estomago|barriga|vientre|tripa|panza)).{0,80}\\bespalda`,
      `duele ${W}{0,2}(?:la barriga|el estomago|la tripa|el vientre|la panza).{0,80}\\bespalda`,
      '(?:fuerte|intenso|terrible|horrible|insoportable|tremendo) dolor (?:abdominal|de (?:estomago|barriga|tripa|panza))',
      `dolor (?:abdominal|de (?:estomago|barriga|tripa|panza)) ${W}{0,1}(?:muy fuerte|intenso|insoportable|terrible|horrible|fortisimo)`),
    ...r('priapism',
      `ereccion\\w*\\b.{0,50}\\b${HOURS.es} horas`, `ereccion ${W}{0,3}que no (?:se )?(?:baja|va|pasa|quita|desaparece|acaba)`, `ereccion ${W}{0,3}desde (?:anoche|ayer)`),
    ...r('sudden_vision_or_hearing_loss',
      `perdida ${W}{0,1}(?:de (?:la )?)?(?:vision|vista|audicion)`, `perdi ${W}{0,1}(?:la vista|la vision|el oido|la audicion)`,
      `no veo ${W}{0,1}(?:nada|de un ojo|por un ojo)`, 'quedado cieg[ao]', 'ceguera', 'no oigo nada'),
    ...r('fainting',
      'desmay\\w*', '(?:perdi|perdida de|perder) (?:el |la )?(?:conocimiento|conciencia|consciencia|sentido)'),
    ...r('testicular_pain',
      `dolor\\w* ${W}{0,2}(?:en el|en los|del|de los|en un|de un) (?:testiculo|huevo|escroto)\\w*`, `(?:me )?duele\\w* ${W}{0,1}(?:el|los|un) (?:testiculo|huevo)\\w*`,
      `(?:testiculo|escroto|huevo)\\w* ${W}{0,1}(?:hinchad|inflamad|me duele)\\w*`),
    ...r('kidney_infection',
      '(?:fiebre|calentura|escalofrios|tiritando)\\b.{0,80}\\b(?:costado|rinon\\w*|lumbar|espalda)', '(?:dolor\\w* (?:de|en (?:el|la|los)) (?:costado|rinon\\w*|espalda)|lumbago)\\b.{0,80}\\b(?:fiebre|calentura|escalofrios)', 'infeccion de rinon'),
    ...r('heavy_bleeding',
      `sangrado ${W}{0,1}(?:abundante|muy fuerte|fuerte|enorme|excesivo)`, `sangro ${W}{0,1}(?:mucho|muchisimo|sin parar)`, `no (?:para|deja) de sangrar`,
      `(?:pierdo|perdiendo) ${W}{0,1}(?:mucha|muchisima) sangre`, `(?:empapo|lleno|cambio) ${W}{0,2}(?:compresa|toalla|tampon)\\w* ${W}{0,1}cada hora`),
    ...r('ectopic_pregnancy',
      `(?:embarazada|test ${W}{0,2}positivo|prueba ${W}{0,2}positiva)\\b.{0,80}\\b(?:dolor\\w*|duele|sangr\\w*|manch\\w*)`),
    ...r('overdose',
      `(?:tengo|tuve|tome|he tomado|hice|hecho) ${W}{0,1}(?:una )?sobredosis`, `(?:tome|me tome|me inyecte|inyecte|trague) ${W}{0,1}(?:\\d+|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|todas|varias|muchas) ${W}{0,1}(?:plumas|pastillas|pildoras|dosis|inyecciones|comprimidos) ${W}{0,2}(?:de golpe|a la vez|juntas|de una vez)`,
      `demasiadas ${W}{0,1}(?:pastillas|pildoras|dosis|inyecciones|comprimidos)`),
    ...r('suicidal', `no quiero ${W}{0,1}despertar`, `(?:acabar|terminar) con todo`),
    ...r('priapism', `${HOURS.es} horas ${W}{0,3}(?:ereccion|erecto|empalmado|la tengo dura)`),
  ],
  fr: [
    ...r('chest_pain',
      `douleur\\w* ${W}{0,2}(?:thoracique\\w*|a la poitrine|dans la poitrine|au thorax|dans le thorax|au niveau de la poitrine|au coeur)`,
      'mal (?:a|dans) la poitrine', 'mal au thorax', 'poitrine (?:me )?(?:fait mal|serre\\w*|oppress\\w*|brul\\w*)',
      `(?:oppression|serrement|pression|poids|serre|brulure\\w*) ${W}{0,2}(?:dans la|sur la|a la) poitrine`, 'oppression thoracique',
      `(?:fais|faire|en train de faire) ${W}{0,1}(?:une crise cardiaque|un infarctus)`),
    ...r('breathing',
      `arrive (?:pas|plus) ${W}{0,1}a respir\\w*`, `(?:peux|peut|pouvais) (?:pas|plus) ${W}{0,1}respir\\w*`,
      `(?:du mal|difficult\\w*|peine|gene) ${W}{0,1}(?:a|pour) respirer`, 'essouffl\\w*\\b(?! (?:apres|pendant|en faisant) (?:le |du |la |mon |ma )?(?:sport|course|jogging|footing|velo|natation)\\b)', 'souffle court',
      'manque (?:d )?air', 'manque de souffle', 'etouff\\w*', 'suffoqu\\w*', 'detresse respiratoire',
      'respire (?:tres )?mal', 'ne respire plus'),
    ...r('anaphylaxis',
      `reaction\\w* allergique\\w* ${W}{0,1}(?:grave|severe|importante|violente|forte)`,
      `(?:gorge|langue|levres?|visage|bouche) ${W}{0,2}(?:gonfl\\w*|enfl\\w*)`,
      `(?:gonfl\\w*|enfl\\w*) ${W}{0,2}(?:de la )?(?:gorge|langue|levres?|visage)`, 'oedeme (?:de la |du )?(?:gorge|glotte|visage|langue)', `gorge ${W}{0,2}se (?:ferme|serre|bloque)`),
    ...r('suicidal',
      `(?:veux|vais|envie de|pense a|penser a|voudrais|pensees? de) ${W}{0,1}me tuer`,
      '(?:veux|vais|voudrais|envie d|envie de|besoin d) en finir', 'en finir avec (?:la|ma) vie', 'mettre fin a (?:mes jours|ma vie)',
      `(?:veux|envie de|voudrais|prefererais) ${W}{0,1}mourir`, '(?:plus|pas) envie de vivre', 'me faire du mal'),
    ...r('pancreatitis',
      `(?:douleur\\w*|mal) ${W}{0,2}(?:au ventre|abdominal\\w*|a l estomac|au niveau de l estomac|dans le ventre|du ventre).{0,80}\\bdos\\b`,
      '(?:forte\\w*|violente\\w*|intense\\w*|terrible\\w*|horrible\\w*|atroce\\w*|insupportable\\w*) (?:douleur\\w*|mal) (?:au ventre|abdominal\\w*|a l estomac)',
      `(?:douleur\\w*|mal) (?:au ventre|abdominal\\w*|a l estomac) ${W}{0,1}(?:intense\\w*|violente?\\w*|atroce\\w*|insupportable\\w*|tres forte\\w*)`),
    ...r('priapism',
      `erection\\w*\\b.{0,50}\\b${HOURS.fr} ?(?:heures|h)\\b`, `erection ${W}{0,2}qui ne ${W}{0,1}(?:part|passe|redescend|disparait|retombe)`, `erection ${W}{0,3}depuis (?:hier|cette nuit|la nuit)`),
    ...r('sudden_vision_or_hearing_loss',
      `perte ${W}{0,1}de (?:la |l )?(?:vue|vision|audition)`, `perdu ${W}{0,1}(?:la vue|la vision|l audition)`,
      'ne vois plus', 'vois plus rien', '(?:devenue?|suis) aveugle', 'aveugle d un (?:oeil|cote)', 'cecite', 'n entends plus'),
    ...r('fainting',
      '(?:m|me suis|me sens|suis|s est) evanoui\\w*', 'evanouissement\\w*', '(?:perdu|perte de|perdre) connaissance',
      '(?:fait|faire|fais) un malaise', 'tomb\\w* dans les pommes', '(?:me suis|suis|s est) effondre\\w*', 'inconscien\\w*'),
    ...r('testicular_pain',
      `(?:douleur\\w*|mal) ${W}{0,2}(?:au|aux|a un|a la|dans le|dans les) (?:testicule|couille|bourse|scrotum)\\w*`, `(?:testicule|bourse|couille)\\w* ${W}{0,2}(?:gonfl|enfl|douloureu)\\w*`,
      `(?:testicule|bourse|couille)\\w* ${W}{0,1}(?:me )?fai\\w* ${W}{0,1}mal`, 'torsion (?:du |d un )?testicul\\w*'),
    ...r('kidney_infection',
      '(?:fievre|frissons|temperature)\\b.{0,80}\\b(?:flanc|reins?|lombaire\\w*|(?:mal|douleur\\w*) (?:au|dans le) dos|dos me fait mal)', '(?:(?:mal|douleur\\w*) (?:au|aux|dans le|dans les) (?:flanc|reins?|dos)|lombalgie)\\b.{0,80}\\b(?:fievre|frissons)', 'infection (?:du|des) reins?'),
    ...r('heavy_bleeding',
      `saignement\\w* ${W}{0,1}(?:abondant|important|tres fort|fort|enorme|massif)\\w*`, `saigne ${W}{0,1}(?:beaucoup|enormement|abondamment|sans arret)`, `(?:arrete|arrive) pas de saigner`,
      `(?:perds|perdre) ${W}{0,1}(?:beaucoup|enormement) de sang`, `(?:serviette|tampon|protection)\\w* ${W}{0,2}(?:toutes les heures|par heure)`),
    ...r('ectopic_pregnancy',
      `(?:enceinte|test ${W}{0,2}positif)\\b.{0,80}\\b(?:douleur\\w*|mal|saign\\w*|crampe\\w*)`),
    ...r('overdose',
      `(?:fait|pris|eu) ${W}{0,1}(?:une )?(?:surdose|overdose)`, `(?:pris|injecte|avale) ${W}{0,1}(?:\\d+|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|tous|toutes|plusieurs) ${W}{0,1}(?:stylos|comprimes|cachets|pilules|doses|injections) ${W}{0,2}(?:d un coup|en meme temps|a la fois|d un seul coup)`,
      `trop de ${W}{0,1}(?:comprimes|cachets|pilules|medicaments)`),
    ...r('suicidal', `(?:tout|tous) ${W}{0,1}(?:arreter|en finir)`, `(?:plus|pas) (?:me )?reveiller`),
    ...r('priapism', `(?:bande|bander|dur) ${W}{0,2}depuis ${HOURS.fr} ?(?:heures|h)\\b`),
  ],
  it: [
    ...r('chest_pain',
      `dolor[ei] ${W}{0,3}(?:al|nel|sul|del|in) petto`, 'male al petto',
      `mi fa ${W}{0,1}male (?:il|al) petto`, 'petto (?:mi )?fa male', 'petto mi fa malissimo',
      `(?:oppressione|peso|pressione|fitta|fitte|stretta|bruciore) ${W}{0,2}(?:al|nel|sul) petto`,
      '(?:ho|avere|sto avendo) un infarto'),
    ...r('breathing',
      `(?:non riesco|riesco a malapena|faccio fatica|fatico|difficolta) ${W}{0,2}(?:a |nel )?respirare`, 'fiato corto',
      'mi manca (?:il fiato|l aria|il respiro)', 'mancanza (?:di fiato|d aria|di respiro)', 'affanno', 'soffoc\\w*', 'dispnea',
      'respiro (?:a fatica|male)', 'non respiro'),
    ...r('anaphylaxis',
      `reazione allergica ${W}{0,1}(?:grave|forte|severa|seria|violenta)`,
      `(?:gola|lingua|labbra|viso|faccia) ${W}{0,2}gonfi\\w*`, `gonfi\\w* ${W}{0,2}(?:la gola|la lingua|le labbra|il viso)`,
      'edema (?:della )?glottide', `chiude ${W}{0,1}la gola`, `gola ${W}{0,2}(?:chiusa|si chiude)`),
    ...r('suicidal',
      'uccidermi', 'ammazzarmi', 'togliermi la vita', 'farla finita', `voglio ${W}{0,1}morire`, `non voglio ${W}{0,1}vivere`, 'farmi del male'),
    ...r('pancreatitis',
      `(?:dolor[ei]|male) ${W}{0,2}(?:addominal[ei]|alla pancia|allo stomaco|al ventre|di pancia|di stomaco|all addome).{0,80}\\bschiena`,
      `(?:forte|fortissimo|intenso|terribile|atroce|lancinante|insopportabile) ${W}{0,1}(?:dolore|mal) ${W}{0,1}(?:addominale|alla pancia|allo stomaco|di pancia|di stomaco)`,
      `(?:dolore|mal) (?:addominale|alla pancia|allo stomaco|di pancia|di stomaco) ${W}{0,1}(?:fortissimo|forte|intenso|terribile|atroce|lancinante|insopportabile)`),
    ...r('priapism',
      `erezion[ei]\\w*\\b.{0,50}\\b${HOURS.it} ore\\b`, `erezione ${W}{0,2}che non ${W}{0,1}(?:passa|va via|scende|finisce)`, `erezione ${W}{0,3}da (?:ieri|stanotte)`),
    ...r('sudden_vision_or_hearing_loss',
      `perdita ${W}{0,1}(?:della|di|dell) (?:vista|visione|udito)`, `(?:improvvisa|improvvisamente) ${W}{0,2}(?:perdita|ciec[oa]|sord[oa])`,
      `perso ${W}{0,1}(?:la vista|l udito)`, 'non vedo (?:piu )?(?:niente|nulla|da un occhio)', '(?:diventat[oa]|sono) ciec[oa]', 'ciec[oa] da un occhio'),
    ...r('fainting',
      'sven(?:ut[oaie]|ire|imento|imenti|go)', 'perso (?:i sensi|conoscenza|coscienza)', 'perdita di (?:coscienza|conoscenza|sensi)', 'collasso'),
    ...r('testicular_pain',
      `(?:dolor[ei]|male) ${W}{0,2}(?:al|ai|a un|allo|nel|nei) (?:testicol|scrot)\\w*`, `(?:testicol|scrot)\\w* ${W}{0,2}(?:gonfi|dolorant|fa male|mi fa male)\\w*`,
      `mi fa\\w* ${W}{0,1}mal\\w* (?:il|un|i) testicol\\w*`, 'torsione (?:del |testicol)\\w*'),
    ...r('kidney_infection',
      '(?:febbre|brividi)\\b.{0,80}\\b(?:fianco|reni|rene|lombare|schiena)', '(?:(?:dolore|male) (?:al|ai|alla) (?:fianco|reni|rene|schiena)|lombalgia)\\b.{0,80}\\b(?:febbre|brividi)', 'infezione (?:ai|al|dei|del) ren[ei]'),
    ...r('heavy_bleeding',
      `sanguinamento ${W}{0,1}(?:abbondante|forte|eccessivo|fortissimo)`, `sanguin[oa] ${W}{0,1}(?:molto|tantissimo|tanto|senza sosta)`, `non (?:smette|smetto) di sanguinare`,
      `(?:perdo|perdendo) ${W}{0,1}(?:molto|tanto|tantissimo) sangue`, `(?:assorbente|tampone)\\w* ${W}{0,2}ogni ora`),
    ...r('ectopic_pregnancy',
      `(?:incinta|test ${W}{0,2}positivo)\\b.{0,80}\\b(?:dolor\\w*|male|sangu\\w*|perdite|crampi)`),
    ...r('overdose',
      `(?:fatto|avuto|preso) ${W}{0,1}(?:un |una )?(?:overdose|sovradosaggio)`, 'sovradosat[oa]', `(?:preso|iniettato|ingoiato|fatto) ${W}{0,1}(?:\\d+|due|tre|quattro|cinque|sei|sette|otto|nove|dieci|tutte|tutti) ${W}{0,1}(?:penne|pillole|pastiglie|compresse|dosi|iniezioni) ${W}{0,2}(?:in una volta|insieme|tutte insieme|in un colpo)`,
      `troppe ${W}{0,1}(?:pillole|pastiglie|compresse|dosi)`),
    ...r('suicidal', `non ${W}{0,1}svegliarmi piu`, 'finire tutto'),
    ...r('priapism', `(?:duro|eretto) ${W}{0,2}da ${HOURS.it} ore\\b`),
  ],
  nl: [
    ...r('chest_pain',
      `p(?:ij|y)n ${W}{0,2}(?:op|in|aan) (?:de|mijn) borst(?:kas|been)?\\b`, 'borstpijn\\w*',
      `(?:druk\\w*|beklem\\w*|knel\\w*|stek\\w*|zwaar\\w*|benauwd gevoel) ${W}{0,2}(?:op|in) (?:de|mijn) borst(?:kas)?\\b`,
      `borst ${W}{0,1}doet ${W}{0,1}pijn`, `(?:heb|krijg) ${W}{0,2}(?:een )?hartaanval`, 'hartaanval (?:heb|krijg|aan het krijgen)'),
    ...r('breathing',
      'kortademig\\w*', 'ademnood', 'benauwd(?:heid)?\\b(?! (?:weer|warm|in huis|hier)\\b)',
      `(?:kan|kon) ${W}{0,2}niet ${W}{0,1}(?:ademen|ademhalen)`, `(?:krijg|kreeg|krijgen) ${W}{0,2}geen ${W}{0,1}lucht`,
      'geen lucht (?:meer|krijgen)', 'moeite (?:met|bij) (?:het )?adem\\w*', `moeilijk ${W}{0,1}ademen`,
      'ademhalingsproblemen', 'ademhalingsmoeilijkheden', '(?:hap|happen|hapte|snak|snakken) naar (?:adem|lucht)', 'ik stik', 'ga stikken', 'aan het stikken'),
    ...r('anaphylaxis',
      '(?:ernstige|zware|heftige|hevige) allergische reactie', 'allergische shock',
      `(?:keel|tong|lippen?|gezicht|mond) ${W}{0,2}(?:zwel\\w*|opgezwollen|gezwollen)`, 'dikke (?:tong|lippen|keel)',
      'gezwollen (?:tong|keel|lippen|gezicht)', `keel ${W}{0,2}(?:dicht\\w*|knijpt\\w*)`),
    ...r('suicidal',
      'zelfmoord\\w*', 'zelfdoding\\w*', 'ik wil (?:echt |gewoon )?niet meer(?= $)', `wil ${W}{0,1}dood\\b`, `(?:wil|kan) ${W}{0,2}niet meer (?:leven|verder)`,
      `(?:eind|einde) ${W}{0,1}(?:aan|maken aan) (?:mijn|het) leven`, 'een (?:eind|einde) aan (?:te )?maken', 'mijn leven (?:beeindigen|beindigen)',
      `mezelf ${W}{0,3}(?:van het leven beroven|iets aan(?: te)? doen|iets aandoen|doden|ophangen|van kant maken)`),
    ...r('pancreatitis',
      'alvleesklierontsteking\\w*',
      `(?:\\w*buikpijn|maagpijn|p(?:ij|y)n ${W}{0,2}(?:in|aan) (?:mijn|de) \\w*buik).{0,80}\\brug\\b`,
      `(?:hevige|erge|ernstige|heftige|enorme|vreselijke|ondraaglijke|verschrikkelijke) ${W}{0,1}(?:\\w*buikpijn|maagpijn|p(?:ij|y)n ${W}{0,2}\\w*buik)`),
    ...r('priapism',
      `erectie\\w*\\b.{0,50}\\b${HOURS.nl} uur\\b`, `erectie ${W}{0,3}(?:gaat|wil|verdwijnt) ${W}{0,2}niet (?:meer )?(?:weg|over)`, `erectie ${W}{0,3}sinds (?:gisteren|vannacht|gisteravond)`),
    ...r('sudden_vision_or_hearing_loss',
      `zie ${W}{0,2}(?:niets|niks) meer`, `(?:plotseling|opeens|ineens|plots) ${W}{0,3}(?:blind|doof|slechtziend)`,
      '(?:verlies|verloren) (?:van )?(?:mijn |het )?(?:zicht|gezichtsvermogen|gehoor)', `blind (?:aan|in|op) ${W}{0,1}oog`,
      `hoor ${W}{0,2}(?:niets|niks) meer`),
    ...r('fainting',
      'flauw ?(?:gevallen|vallen|viel|val)\\b', `(?:viel|val|ga) ${W}{0,2}flauw\\b`, `flauw ${W}{0,1}(?:vallen|val)\\b`,
      'bewusteloos\\w*', 'buiten bewustzijn', 'bewustzijn (?:verloren|kwijt)', 'onwel geworden', 'weggeraakt'),
    ...r('testicular_pain',
      `p(?:ij|y)n ${W}{0,2}(?:in|aan) (?:mijn|de|een|mn) (?:(?:linker|rechter) ?)?(?:zaadbal|bal|ballen|testikel|balzak)\\w*`, `(?:zaadbal|bal|ballen|testikel|balzak)\\w* ${W}{0,2}(?:doet|doen) ${W}{0,2}pijn`,
      `(?:zaadbal|testikel|balzak)\\w* ${W}{0,2}(?:opgezwollen|gezwollen|dik)`, '(?:zaadbal|bal|testikel)pijn', 'zaadbaltorsie', 'testistorsie'),
    ...r('kidney_infection',
      '(?:koorts\\w*|rillingen|koude rillingen)\\b.{0,80}\\b(?:flank\\w*|nier\\w*|zij|rug ?pijn|pijn in (?:mijn|de) (?:rug|zij))', '(?:(?:flank|nier|rug|zij)pijn|pijn in (?:mijn|de) (?:rug|zij|flank))\\b.{0,80}\\b(?:koorts|rillingen)', 'nierbekkenontsteking\\w*', 'nierinfectie'),
    ...r('heavy_bleeding',
      `(?:hevig|heftig|erg|veel|zwaar)\\w* ${W}{0,1}(?:bloedverlies|bloeding\\w*|bloeden)`, `bloed ${W}{0,1}(?:heel erg|erg|heel veel|enorm)`, `bloeding ${W}{0,2}(?:stopt|houdt) ${W}{0,1}niet(?: op)?`,
      `(?:verlies|verliezen) ${W}{0,1}(?:heel )?veel bloed`, `(?:elk|ieder) uur ${W}{0,2}(?:verband|maandverband|tampon)`),
    ...r('ectopic_pregnancy',
      `(?:zwanger|zwangerschapstest ${W}{0,1}positief|positieve ${W}{0,1}(?:zwangerschaps)?test)\\b.{0,80}\\b(?:pijn|kramp\\w*|bloed\\w*)`, 'buitenbaarmoederlijke\\w*'),
    ...r('overdose',
      `(?:een|n) overdosis ${W}{0,1}(?:genomen|gehad|gespoten)`, `(?:\\d+|twee|drie|vier|vijf|zes|zeven|acht|negen|tien|alle) ${W}{0,1}(?:pennen|pillen|tabletten|doses|spuiten|injecties) ${W}{0,2}(?:tegelijk|in een keer|ineens|tegelijkertijd)`,
      `te veel ${W}{0,1}(?:pillen|tabletten|injecties)`),
    ...r('suicidal', `niet meer wakker ${W}{0,1}worden`, 'er een eind aan'),
    ...r('priapism', `${HOURS.nl} uur ${W}{0,3}(?:stijf|hard|erectie)`),
  ],
  pt: [
    ...r('chest_pain',
      `dor(?:es)? ${W}{0,2}(?:no|do|de|em) peito`, 'dor(?:es)? toracica\\w*',
      `(?:doi|doi me|me doi|esta a doer|esta doendo) ${W}{0,1}(?:o )?peito`, `peito ${W}{0,2}(?:doi|doer|doendo)`,
      `(?:aperto|pressao|peso|pontada\\w*|ardor) ${W}{0,2}(?:no|sobre o) peito`,
      '(?:ter|tendo|a ter) (?:um )?(?:ataque cardiaco|ataque do coracao|enfarte|infarto)'),
    ...r('breathing',
      'falta de ar', '(?:falta me|me falta|falta) (?:o )?ar\\b', `(?:nao consigo|nao consegue|mal consigo) ${W}{0,1}respirar`,
      `dificuldade\\w* ${W}{0,1}(?:em|para|a|de) respirar`, `(?:custa me|me custa|custa) ${W}{0,1}respirar`, 'sufoc\\w*',
      'sem ar\\b(?! condicionado\\b)', 'dispneia', '(?:respiro|respirar) mal'),
    ...r('anaphylaxis',
      `reacao alergica ${W}{0,1}(?:grave|severa|forte|seria)`,
      `(?:garganta|lingua|labios|cara|rosto|boca) ${W}{0,3}(?:inchad[ao]s?|inchar|inchando)`, `garganta ${W}{0,3}fech\\w*`,
      `inch\\w* ${W}{0,2}(?:a garganta|a lingua|os labios|a cara)`),
    ...r('suicidal',
      'me matar', 'matar me', 'tirar a (?:minha )?(?:propria )?vida', 'acabar com (?:a minha|minha) vida',
      `quero ${W}{0,1}morrer`, 'acabar com tudo', `nao quero ${W}{0,1}viver`, 'me magoar', 'magoar me'),
    ...r('pancreatitis',
      `dor(?:es)? ${W}{0,2}(?:abdominal|abdominais|de barriga|na barriga|de estomago|no estomago|no abdomen).{0,80}\\bcostas`,
      `dor(?:es)? (?:abdominal|abdominais|de barriga|na barriga|de estomago|no estomago) ${W}{0,1}(?:forte|fortissima|intensa|insuportavel|terrivel|horrivel)`,
      '(?:forte|intensa|terrivel|horrivel|insuportavel) dor (?:abdominal|de barriga|na barriga|de estomago)'),
    ...r('priapism',
      `ere(?:c|cc|ss|s)ao\\w*\\b.{0,50}\\b${HOURS.pt} horas`, `erecao ${W}{0,3}que nao ${W}{0,1}(?:passa|desaparece|baixa|vai embora|acaba)`, `erecao ${W}{0,3}desde ontem`),
    ...r('sudden_vision_or_hearing_loss',
      `perda ${W}{0,1}(?:de|da) (?:visao|vista|audicao)`, 'perdi (?:a )?(?:visao|vista|audicao)',
      'nao (?:vejo|consigo ver) (?:nada|de um olho)', 'fiquei ceg[ao]', '(?:fiquei sem|deixei de) (?:ver|enxergar|ouvir)', 'cegueira', 'nao (?:oico|ouco) nada'),
    ...r('fainting',
      'desmai\\w*', '(?:perdi|perda de|perder) (?:os |a )?(?:sentidos|consciencia)', 'apaguei'),
    ...r('testicular_pain',
      `dor(?:es)? ${W}{0,2}(?:no|nos|num|do|dos) (?:testiculo|escroto|saco)\\w*`, `(?:testiculo|escroto)\\w* ${W}{0,2}(?:inchad|doi|doendo|dolorid)\\w*`,
      `doi ${W}{0,2}(?:o|um|os) testiculo\\w*`, 'tor(?:c|s)ao (?:testicular|do testiculo)'),
    ...r('kidney_infection',
      '(?:febre|calafrios|arrepios)\\b.{0,80}\\b(?:flanco|rins?|lombar|costas|lado)', '(?:dor(?:es)? (?:no|nos|nas|de) (?:flanco|rins?|costas|lado))\\b.{0,80}\\b(?:febre|calafrios)', 'infe(?:c|cc)ao (?:no|nos|renal) ?(?:rins?)?'),
    ...r('heavy_bleeding',
      `(?:sangramento|hemorragia|sangrando) ${W}{0,1}(?:intenso|abundante|forte|muito forte|muito|demais)`, `sangro ${W}{0,1}(?:muito|imenso|demais)`, `nao para de sangrar`,
      `(?:perdendo|perco|a perder) ${W}{0,1}muito sangue`, `(?:penso|absorvente|tampao)\\w* ${W}{0,2}(?:a cada|por|todas as) hora`),
    ...r('ectopic_pregnancy',
      `(?:gravida|teste ${W}{0,2}positivo)\\b.{0,80}\\b(?:dor\\w*|doi|sangr\\w*|colica\\w*)`, 'gravidez fora do utero'),
    ...r('overdose',
      `(?:tive|tomei|fiz|tenho) ${W}{0,1}(?:uma )?(?:overdose|sobredose|sobredosagem)`, `(?:tomei|injetei|engoli) ${W}{0,1}(?:\\d+|duas|dois|tres|quatro|cinco|seis|sete|oito|nove|dez|todos|todas) ${W}{0,1}(?:canetas|comprimidos|pilulas|doses|injecoes) ${W}{0,2}(?:de uma vez|ao mesmo tempo|juntos|juntas|de uma so vez)`,
      `(?:comprimidos|pilulas|remedios) (?:demais|a mais)`, `muitos? ${W}{0,1}(?:comprimidos|pilulas|remedios) ${W}{0,1}(?:de uma vez|juntos)`),
    ...r('suicidal', `nao quero ${W}{0,1}acordar`, `acabar com isto tudo`),
    ...r('priapism', `${HOURS.pt} horas ${W}{0,3}(?:ere(?:c|cc|ss|s)ao|duro|teso)`, `(?:duro|teso) ${W}{0,2}ha ${HOURS.pt} horas`),
  ],
};

/** Every table: the original one and the taxonomy's classes (emergency-rules.ts). */
export const RULES: Record<DetectorLocale, Rule[]> = Object.fromEntries(
  (Object.keys(BASE_RULES) as DetectorLocale[]).map((l) => [l, [...BASE_RULES[l], ...EXTRA_RULES[l]]]),
) as Record<DetectorLocale, Rule[]>;

interface Compiled {
  category: EmergencyCategory;
  locale: DetectorLocale;
  source: string;
  regex: RegExp;
  global: RegExp;
}
const COMPILED: Compiled[] = (Object.entries(RULES) as [DetectorLocale, Rule[]][]).flatMap(([locale, rules]) =>
  rules.map((rule) => ({ category: rule.category, locale, source: rule.re, regex: new RegExp(`\\b(?:${rule.re})\\b`), global: new RegExp(`\\b(?:${rule.re})\\b`, 'g') })),
);

/** Lower case, accents and ligatures folded, English contractions joined, everything else one space. */
export function normaliseText(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/œ/g, 'oe')
    .replace(/æ/g, 'ae')
    .replace(/ß/g, 'ss')
    .replace(/ø/g, 'o')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[’‘`´]/g, "'")
    .replace(/([a-z])'(t|s|m|re|ve|ll|d)\b/g, '$1$2')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
}

export interface EmergencyMatch {
  category: EmergencyCategory;
  /** The table the pattern came from ('all' for stems shared by several languages and for the model). */
  locale: DetectorLocale;
  /** The rule's pattern, or "model <score>". */
  pattern: string;
  tier: RedFlagTier;
  /** A rule, or the statistical layer (emergency-model.ts). */
  by: 'rule' | 'model';
  /** What the desk is shown: the words the rule matched, or the words and n-grams that raised the model's score most. */
  evidence: string[];
  /** The model's probability (model hits only). */
  score?: number;
}

// Misspelling repair: a word of at least 6 letters one edit (insert, delete, substitute, swap two
// neighbours) away from one of these long key words is read as that word ("suacidal", "priapsim",
// "anaphalactic", "zelfmoortgedachten", "respirrar"). Only long, distinctive words are listed: short
// ones collide with ordinary words ("kilo"/"kill", "letto"/"petto", "venuto"/"svenuto",
// "election"/"erection", "painted"/"fainted", "abdominals"/"abdominal" are why those are absent). The patterns run on the text as written and on
// the repaired text; a match on either counts.
export const TYPO_VOCABULARY: readonly string[] = [
  // en
  'suicidal', 'suicide', 'anaphylactic', 'anaphylaxis', 'shortness', 'breathe', 'breathing', 'breathless', 'unconscious',
  'consciousness', 'priapism', 'pancreatitis',
  // de
  'brustschmerzen', 'brustschmerz', 'atemnot', 'luftnot', 'suizidgedanken', 'selbstmord', 'selbstmordgedanken', 'bewusstlos',
  'ohnmachtig', 'anaphylaxie', 'anaphylaktisch', 'anaphylaktischer', 'pankreatitis', 'kurzatmig', 'umbringen', 'bauchschmerzen',
  // es
  'respirar', 'suicidio', 'suicidarme', 'desmayado', 'desmayada', 'anafilaxia', 'anafilactico', 'toracico', 'pancreatitis',
  // fr
  'respirer', 'thoracique', 'poitrine', 'suicider', 'suicidaire', 'anaphylactique', 'essouffle', 'essoufflee', 'pancreatite',
  // it
  'respirare', 'suicidio', 'anafilassi', 'anafilattico', 'pancreatite',
  // nl
  'zelfmoord', 'zelfmoordgedachten', 'kortademig', 'benauwd', 'ademhalen', 'flauwgevallen', 'bewusteloos', 'anafylaxie',
  'alvleesklierontsteking', 'borstpijn',
  // pt
  'toracica', 'desmaiei', 'desmaiar', 'anafilatico', 'priapismo',
];
const VOCAB = new Set(TYPO_VOCABULARY);

/** True when a and b are at most one edit apart (Damerau: insert, delete, substitute, adjacent swap). */
function oneEditApart(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swap
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1); // deletion / insertion
}

/** The normalised text with every near-miss of a key word replaced by the key word (null: nothing to repair). */
export function repairTypos(normalised: string): string | null {
  let changed = false;
  const words = normalised
    .trim()
    .split(' ')
    .map((w) => {
      if (w.length < 6 || VOCAB.has(w)) return w;
      for (const v of VOCAB) {
        if (oneEditApart(w, v)) {
          changed = true;
          return v;
        }
      }
      return w;
    });
  return changed ? ` ${words.join(' ')} ` : null;
}

// ---------------------------------------------------------------- negation and past history
//
// Each match is read in its clause (the text between , : ; . ! ? ( ) and line breaks) and its
// sentence (between . ! ? ; and line breaks), in every locale's words (patients mix languages):
// - Negated: a negation word ("no", "not", "dont", "kein", "sin", "pas", "non", "geen", "nao", ...)
//   before the match with only filler words between ("I don't have any chest pain", "no fever or
//   chest pain": list items joined by "or" count as fillers), or a bare "none"/"no" closing the
//   clause after it ("chest pain: none"). Pronouns, "and", "but" and every other word end the
//   negation's reach: "I don't feel good my chest hurts" stays an emergency.
// - Past history: the sentence names a time at least weeks back ("last year", "3 months ago",
//   "vor zwei Jahren", "hace un ano", "il y a 3 ans", "anni fa", "vorig jaar", "ha 2 anos", "in
//   2019", "as a child", "used to") and no present marker ("now", "again", "still", "today",
//   "jetzt", "wieder", "ahora", "encore", "ancora", "weer", "agora", ...). "Yesterday" and "2 days
//   ago" are not history: a recent event stays an emergency.
// A category is an emergency when one of its matches is neither negated nor history; history when
// one is history (or a negated suicidal mention: thoughts of suicide are always shown to a person);
// otherwise (only negated) it is not reported.
const words = (s: string) => new Set(s.trim().split(/\s+/));
const NEGATION_CUES = words(`
  no not never without nor neither none dont doesnt didnt havent hasnt hadnt isnt arent wasnt werent denies deny
  kein keine keinen keinem keiner keines nicht nie niemals ohne weder
  sin nunca jamas ni ningun ninguna ninguno tampoco
  pas jamais sans aucun aucune
  non nessun nessuno nessuna senza niente mai
  geen niet nooit zonder
  nao sem nem nenhum nenhuma`);
// Words that may stand between a negation and what it negates.
const NEGATION_FILLERS = words(`
  have has had having any a an the my get got getting feel feeling felt experience experienced experiencing notice noticed
  suffer suffering from of more longer real really actually signs sign symptoms symptom been ever do did does am is was are thoughts
  gedanken pensamientos ideas ideacion pensees idees pensieri gedachten pensamentos sono sou ben bin suis soy estoy estou sto
  habe hab hat hatte hatten mehr wirklich irgendwelche richtige richtigen einen eine ein gehabt bemerkt verspure verspuere spure spuere bin war
  tengo tenia he tenido ha hay habido siento sentido algun alguna mas ya el la los las un una de del nada sufro noto notado
  ai eu d de du des un une la le les ressenti ressens sens senti vraiment j n ne
  ho avuto ha c e piu alcun alcuna il lo di del della sento sentito provato mai mi
  heb had hebt heeft meer last van een de het echt gehad gevoeld voel merk gemerkt
  tenho tive tem teve houve sinto senti qualquer um uma o da do mais me estou com
  think thinking thought about considered considering planning plan want wanted intend intention
  denke denk dachte gedacht daran an vor
  pienso pensado pensando pense en intencion
  pense penser pensais au aux a envie l intention
  penso pensato pensando al alla allo intenzione
  denk dacht aan over plannen van plan
  pensei pensado pensando em intencao ideia
  pensiero pensamiento gedanke pensee idee idea gedachte pensamento`);
const LIST_WORDS = words('or nor oder o ni ou of nem ne');
const POST_NEGATION = words('none no nope nein keine nicht ninguno ninguna non aucune aucun nee geen nao nenhum nenhuma nessuno nessuna negative negativ');
const NUM = '(?:\\d+|a|an|one|two|three|four|five|six|few|couple of|several|many|some|ein|einem|einer|zwei|drei|vier|funf|ein paar|einigen|mehreren|vielen|un|una|dos|tres|cuatro|cinco|unos|unas|varios|varias|muchos|une|deux|trois|quatre|cinq|quelques|plusieurs|due|tre|quattro|cinque|qualche|alcuni|alcune|diversi|diverse|molti|een|twee|drie|vijf|paar|enkele|aantal|um|uma|dois|duas|alguns|algumas)';
const HISTORY_RE = new RegExp(
  `\\b(?:${[
    `${NUM} (?:weeks?|months?|years?) ago`, '(?:years|ages|long|months) ago', 'last (?:week|month|year|summer|winter|spring|autumn|fall|christmas)', 'in the past', 'used to', 'history of',
    'back in', 'years back', 'previously', 'when i was', 'as a (?:child|kid|teenager|teen)',
    `vor ${NUM} (?:wochen?|monaten?|jahren?)`, 'vor langer zeit', 'letzte\\w* (?:woche|monat|jahr|sommer|winter)', 'fruher', 'frueher', 'damals', 'in der vergangenheit', 'als (?:kind|jugendliche\\w*|teenager)',
    `hace ${NUM} (?:semanas?|mes|meses|anos?)`, '(?:el|la) (?:ano|mes|semana) pasad[oa]', 'en el pasado', 'de (?:nino|nina|joven|adolescente)', 'cuando era', 'antecedentes de', 'anos atras',
    `il y a ${NUM} (?:semaines?|mois|ans|annees?)`, '(?:l|la|le) (?:an|annee|mois|semaine) (?:dernier|derniere|passe|passee)', 'autrefois', '(?:dans|par) le passe', 'quand j etais', 'antecedents? de',
    `${NUM} (?:settimane|settimana|mesi|mese|anni|anno) fa`, '(?:anno|mese) scorso', 'settimana scorsa', 'in passato', 'da (?:bambino|bambina|ragazzo|ragazza|giovane)', 'quando ero',
    `${NUM} (?:weken|week|maanden|maand|jaar|jaren) geleden`, 'vorig\\w* (?:week|maand|jaar|zomer|winter)', 'vroeger', 'in het verleden', 'als (?:kind|tiener)', 'toen ik',
    `ha ${NUM} (?:semanas?|mes|meses|anos?)`, '(?:o|no|a|na) (?:ano|mes|semana) passad[oa]', 'no passado', 'em crianca', 'quando era', 'anos atras', 'historico de',
    '(?:in|im jahr|en|nel|em|in het jaar) (?:19|20)\\d\\d', '(?:19[5-9]\\d|20[0-2]\\d)(?! ?(?:mg|mcg|ml|g|ui|iu|units?|einheiten|unidades|unita|eenheden))',
    // Long ago, once, at an age: "vor Jahren", "hace anos", "il y a longtemps", "anni fa", "lang geleden", "ha anos", "als Kind".
    'years ago', 'long ago', 'a long time ago', '(?<!at |all at )once(?! (?:a|per|every|daily|weekly|more))', 'at age \\d+', 'aged \\d+', 'as a (?:baby|toddler|student)', 'gone by \\w+', 'went away',
    'vor jahren', 'vor vielen jahren', 'lange her', 'mit \\d+ jahren', 'als baby',
    'hace (?:anos|tiempo|mucho tiempo)', '(?<!de |en )una vez(?! (?:a|al|por|cada|mas))', 'a los \\d+ anos', 'de pequen[oa]', 'de nin[oa]',
    'il y a (?:longtemps|des annees|quelques annees)', '(?:quand j etais|etant|comme) (?:enfant|ado|petit|petite)', 'a l adolescence', 'a l age de \\d+',
    'anni fa', 'tempo fa', 'molto tempo fa', '(?<!in |tutto in )una volta(?! (?:a|al|alla|ogni|per|che))', 'a \\d+ anni', 'da piccol[oa]',
    'lang geleden', 'jaren geleden', 'ooit', 'op mijn \\d+e?',
    // Long-standing ("deaf in one ear for years", "depuis l'enfance", "da anni") and operated on: not sudden, not now.
    // Another person's past ("when he was 2", "quand il etait petit", "toen hij klein was") and a months-long course ("for 3 months").
    'when (?:he|she|they) (?:was|were)', 'als (?:er|sie) (?:\\w+ )?(?:klein|ein kind|jung) war', 'cuando (?:el |ella )?era (?:pequen[oa]|nin[oa]|bebe)', 'quand (?:il|elle) etait (?:petite?|bebe|enfant)', 'quando (?:lui |lei )?era (?:piccol[oa]|bambin[oa])', 'toen (?:hij|zij|ze) (?:\\w+ )?(?:klein|baby|jong) was', 'quando (?:ele |ela )?era (?:pequen[oa]|bebe|crianca)',
    `for (?:${NUM}|many|several) (?:months|years)`, `seit ${NUM} (?:monaten|jahren)`, `desde hace ${NUM} (?:meses|anos)`, `depuis ${NUM} (?:mois|ans)`, `da ${NUM} (?:mesi|anni)`, `(?:al|sinds) ${NUM} (?:maanden|jaar)`,
    'for (?:many )?years', 'since (?:childhood|i was \\w+|birth)', 'operated on', 'seit (?:vielen )?jahren', 'seit (?:der )?kindheit', 'seit geburt', 'operiert',
    'desde hace anos', 'desde (?:nino|nina|pequen[oa]|siempre|la infancia)', 'operad[oa]', 'depuis (?:l enfance|des annees|toujours|la naissance|longtemps)', 'opere\\w*',
    'da anni', 'da sempre', 'dall infanzia', 'operat[oa]', 'al jaren', 'sinds (?:mijn jeugd|jaren|de geboorte)', 'geopereerd', 'desde (?:crianca|sempre|ha anos)',
    'ha (?:anos|muito tempo|muitos anos)', '(?<!de |duma )uma vez(?! (?:por|a|ao|cada|mais))', 'aos \\d+ anos', 'em adolescente', 'em pequen[oa]',
    // In infancy ("tuve meningitis de bebe", "da neonato", "em bebe"): the patient's own past, not now.
    'de bebe', 'quand j etais bebe', 'etant bebe', 'da neonat[oa]', 'em bebe',
  ].join('|')})\\b`,
);
const PRESENT_RE = new RegExp(
  `\\b(?:${[
    'now', 'right now', 'currently', 'today', 'tonight', 'this morning', 'at the moment', 'again', 'still', 'its back', 'came back', 'is back', 'coming back',
    'jetzt', 'gerade', 'heute', 'wieder', 'immer noch', 'noch immer', 'momentan', 'aktuell',
    'ahora', 'hoy', 'otra vez', 'de nuevo', 'todavia', 'aun', 'esta manana',
    'maintenant', 'aujourd hui', 'encore', 'de nouveau', 'actuellement', 'ce matin', 'a nouveau',
    'ora', 'adesso', 'oggi', 'di nuovo', 'ancora', 'stamattina', 'in questo momento',
    'nu', 'vandaag', 'weer', 'opnieuw', 'nog steeds', 'vanochtend', 'momenteel',
    'agora', 'hoje', 'outra vez', 'ainda', 'esta manha', 'neste momento',
  ].join('|')})\\b`,
);

const FINE = '(?:fine|ok|okay|well|good|better|stable|recovered|bien|bem|goed|bene|gut|stabil\\w*|mieux|meglio|beter|melhor|mejor|besser|prima|all good|tudo bem|todo bien|tutto bene|alles gut|alles goed)';
const RESOLVED_RE = new RegExp(`\\b(?:now|ahora|agora|nu|ora|adesso|jetzt|maintenant|today|hoy|hoje|oggi|vandaag|heute)(?: \\w+){0,2} ${FINE}\\b|\\b${FINE} (?:now|ahora|agora|nu|ora|adesso|jetzt|maintenant)\\b`, 'g');

interface Prepared {
  /** The normalised text (as normaliseText), its typo-repaired variant (same words, same count). */
  texts: string[];
  words: string[];
  clause: number[];
  sentence: number[];
  /** Sentences that end with a question mark. */
  asked: Set<number>;
}

/** The normalised text with, for each word, the clause and sentence it stands in. */
function prepare(text: string): Prepared {
  const words: string[] = [];
  const clause: number[] = [];
  const sentence: number[] = [];
  const asked = new Set<number>();
  let c = 0;
  let s = 0;
  // Pieces between separators; a separator of . ! ? ; or a line break also ends the sentence.
  for (const part of text.split(/([.!?;\n\r]+|[,:()]|\s[-–—]\s)/)) {
    if (/^(?:[.!?;\n\r]+)$/.test(part)) {
      if (part.includes('?')) asked.add(s);
      c++;
      s++;
      continue;
    }
    if (/^(?:[,:()]|\s[-–—]\s)$/.test(part)) {
      c++;
      continue;
    }
    const n = normaliseText(part).trim();
    if (!n) continue;
    for (const w of n.split(' ')) {
      words.push(w);
      clause.push(c);
      sentence.push(s);
    }
  }
  const plain = ` ${words.join(' ')} `;
  const repaired = repairTypos(plain);
  return { texts: repaired === null ? [plain] : [plain, repaired], words, clause, sentence, asked };
}

const wordIndexAt = (text: string, index: number) => text.slice(0, index).split(' ').length - 2;

// Portuguese "no" is "in the" ("dor no peito"): not a negation in a Portuguese pattern, unless a
// pronoun or a verb follows it (Spanish "no me autolesiono", "no tengo").
const SPANISH_NO_NEXT = words('me te se le lo la tengo tiene he ha hay estoy esta es puedo siento quiero hago pienso');
const isCue = (w: string, locale: DetectorLocale, next?: string) => NEGATION_CUES.has(w) && !(w === 'no' && locale === 'pt' && !SPANISH_NO_NEXT.has(next ?? ''));

function negated(p: Prepared, start: number, end: number, locale: DetectorLocale): boolean {
  const c = p.clause[start];
  // After a list word ("no fever or stiff neck", "niente bocca storta ne braccio debole") up to three
  // words of the earlier list item may stand between the negation and the list word.
  let itemWords = -1;
  for (let j = start - 1, steps = 0; j >= 0 && p.clause[j] === c && steps < 10; j--, steps++) {
    const w = p.words[j]!;
    if (isCue(w, locale, p.words[j + 1])) return true;
    // French "ne ... plus": "je n ai plus de douleur".
    if (w === 'plus' && (p.words[j - 1] === 'n' || p.words[j - 2] === 'n' || p.words[j - 1] === 'ne')) return true;
    const listItem = LIST_WORDS.has(w) || LIST_WORDS.has(p.words[j + 1] ?? '');
    if (LIST_WORDS.has(w)) itemWords = 0;
    else if (itemWords >= 0 && itemWords < 3 && !NEGATION_FILLERS.has(w)) {
      itemWords++;
      continue;
    }
    if (!NEGATION_FILLERS.has(w) && !listItem) break;
  }
  // "chest pain: none", "Brustschmerzen: keine": a bare negation closes the clause after the match (or the next one).
  const rest: string[] = [];
  const first = p.clause[end + 1] ?? -1;
  for (let j = end + 1; j < p.words.length && p.sentence[j] === p.sentence[end] && p.clause[j] === first; j++) rest.push(p.words[j]!);
  return rest.length > 0 && rest.length <= 2 && first - p.clause[end]! <= 1 && POST_NEGATION.has(rest[rest.length - 1]!);
}

// Classes defined by a count the model cannot read (priapism: an erection of 4 hours or more [E4]):
// only the rules raise them.
const RULES_ONLY: ReadonlySet<EmergencyCategory> = new Set(['priapism']);

/** A negation word anywhere before the word in its clause (the statistical layer's hits). */
function clauseNegated(p: Prepared, at: number): boolean {
  for (let j = at; j >= 0 && p.clause[j] === p.clause[at]; j--) if (isCue(p.words[j]!, 'all') || POST_NEGATION.has(p.words[j]!)) return true;
  return false;
}

/** A co-occurrence match ("fever ... back pain") whose last element is negated ("back pain, no fever"). */
function lastElementNegated(p: Prepared, start: number, end: number, locale: DetectorLocale, source: string): boolean {
  // "cystite, pas de fievre ni mal au dos", "sin fiebre ni dolor de espalda", "no fever or back pain":
  // a negation followed by a list word inside the match negates the list's last element too.
  for (let j = end - 1; j >= start && j > end - 12; j--) {
    const w = p.words[j]!;
    if (isCue(w, locale, p.words[j + 1]) && !new RegExp(`\\b${w}\\b`).test(source) && p.words.slice(j + 1, end + 1).some((x) => LIST_WORDS.has(x))) return true;
  }
  for (let j = end - 1; j >= start && j > end - 5; j--) {
    const w = p.words[j]!;
    // A negation the pattern itself spells ("a rash that does not fade") is the finding, not its negation.
    if (isCue(w, locale) && !new RegExp(`\\b${w}\\b`).test(source)) return true;
    if (!NEGATION_FILLERS.has(w)) return false;
  }
  return false;
}
// Categories whose patterns join two findings (a symptom and a context): either can be negated.
const CO_OCCURRENCE: ReadonlySet<EmergencyCategory> = new Set(['kidney_infection', 'ectopic_pregnancy', 'pancreatitis', 'sepsis', 'meningitis', 'serotonin_syndrome', 'liver']);

// Benign look-alikes read from the sentence: a blocked or runny nose ("can't breathe through it") is
// a cold, not breathlessness, unless the sentence also names a sign of real distress.
const BENIGN_CONTEXT: Partial<Record<EmergencyCategory | 'overdose_prescribed' | 'overdose_small' | 'meningitis_blanching', { benign: RegExp; unless: RegExp }>> = {
  // "Overdosed on Netflix", "sobredosis de chocolate": an idiom, unless medicines are named.
  overdose: {
    benign: /\b(?:food|alimentair\w*|alimentari\w*|alimentar|lebensmittel\w*|voedsel\w*|salmonell\w*|netflix|series|serie|seriale?s?|tv|telly|chocolate|chocola|schokolade|chocolat|cioccolat\w*|coffee|kaffee|cafe|caffe|koffie|sweets|gaming)\b/,
    unless: /\b(?:pills?|tablet\w*|tablett\w*|pastill\w*|comprim\w*|cachets?|pillen|capsul\w*|kapsel\w*|dose|dosis|dosi|doses|dosage|ozempic|wegovy|mounjaro|paracetamol|ibuprofen)\b/,
  },
  // "Took 2 paracetamol for a headache": an ordinary dose, unless more, a whole pack, a double dose or a child.
  overdose_small: {
    benign: /\b(?:took|taken|take|taking|had|nahm|genommen|nehme|tome|tomado|tomo|tomei|tomou|pris|prends|preso|prendo|presa|genomen|neem|ingenomen)\b (?:\w+ ){0,2}(?:1|2|one|two|a couple|ein|eine|einen|zwei|un|una|dos|une|deux|due|een|twee|um|uma|dois|duas)\b/,
    unless: /\b(?:[3-9]|[1-9]\d+|whole|ganze|entera|toute|tutta|hele|inteira|box|packung|caja|boite|scatola|doos|caixa|strip|blister|double|doppelt\w*|doble|doppia|dubbele|dupla|triple|child|kid|toddler|kind|nino|enfant|bambino|crianca|swallowed|geschluckt|tragado|avale|ingoiato|geslikt|engoli\w*|overdos\w*|uberdos\w*|sobredosis|surdos\w*|sovradosaggio|overdosis)\b/,
  },
  overdose_prescribed: {
    benign: /\b(?:doctor|gp|arzt|arztin|hausarzt|medico|medica|medecin|dokter|huisarts|prescribed|verschrieben|verordnet|recetad[oa]|prescrit\w*|prescritt[oa]|voorgeschreven|receitad[oa]|next week|nachste woche|naechste woche|la semana que viene|proxima semana|semaine prochaine|prossima settimana|volgende week)\b/,
    unless: /\b(?:by accident|accidentally|by mistake|aus versehen|versehentlich|sin querer|por error|par erreur|per sbaglio|per ongeluk|sem querer|por engano|whole|ganze|entera|toute|tutta|hele|inteira|swallowed|geschluckt|tragado|avale|ingoiato|geslikt|engoli\w*)\b/,
  },
  // A sore muscle in the chest after the gym, unless the pain spreads or comes with sweating.
  chest_pain: {
    benign: /\b(?:muscle|muscular|pulled|muskel\w*|muscula\w*|muscolar\w*|muscul\w*|spier\w*|gym|palestra|ginasio|gimnasio|fitness|workout|bench press|bankdrucken|muscu|agujetas|courbatures|spierpijn)\b/,
    unless: /\b(?:arm|jaw|sweat\w*|crush\w*|kiefer|schwitz\w*|brazo|mandibula|sud\w*|bras|machoire|braccio|mascella|kaak|zweet\w*|braco|maxilar|suar)\b/,
  },
  // Out of breath on the stairs or running, as usual (exertion), or a blocked nose (a cold): not distress.
  breathing: {
    benign: /\b(?:dreamt|dream\w*|traum\w*|getraumt|sonado|sone|reve|sogno|sognato|gedroomd|droom|sonhei|paperwork|stairs|running|jogging|run|treppe\w*|joggen|laufen|escaleras|corriendo|correr|escaliers|course|courir|scale|correndo|corsa|trap|traplopen|hardlopen|escadas|as usual|wie immer|como siempre|comme d hab\w*|come sempre|zoals altijd|como sempre|nose|nasal|nostril\w*|stuffy|sinus\w*|congested|nase|verstopft\w*|schnupfen|nariz|congestionad\w*|mocos|nez|bouche|enrhume\w*|naso|chiuso|raffreddore|neus|verstopt|verkouden|entupid\w*|constipad\w*)\b/,
    unless: /\b(?:chest|lips?|blue|wheez\w*|throat|rest|resting|brust|lippen|blau|ruhe|pecho|labios|reposo|poitrine|levres|repos|petto|labbra|riposo|borst|rust|peito|repouso|at all|gar nicht|nada|du tout|per niente|helemaal|sudden\w*|plotzlich|de repente|soudain\w*|improvvis\w*|plotseling)\b/,
  },
  // Sunburn that peels: not a drug reaction, unless fever or the mouth or eyes are involved.
  severe_skin_reaction: {
    benign: /\b(?:sunburn\w*|sun burn|sonnenbrand|quemadura (?:de sol|solar)|coup de soleil|scottatura|zonnebrand|verbrand door de zon|queimadura solar|escaldao)\b/,
    unless: /\b(?:fever|mouth|eyes|genital\w*|fieber|mund|augen|fiebre|boca|ojos|fievre|bouche|yeux|febbre|bocca|occhi|koorts|mond|ogen|febre|olhos)\b/,
  },
  // "The side effects are killing me", "ces bouchons me tuent", "I'd die for a pizza": idioms, unless the writer names harming themselves.
  suicidal: {
    benign: /\b(?:side effects?|nebenwirkung\w*|efectos? secundarios?|effets? secondaires?|effetti collaterali|bijwerking\w*|efeitos? secundarios?|traffic|stau|trafico|bouchons|traffico|file|transito|pizza|coffee|kaffee|cafe|caffe|koffie|heat|hitze|calor|chaleur|caldo|hitte|neugier\w*|curios\w*|nieuwsgierig\w*)\b/,
    unless: /\b(?:myself|suicid\w*|end it|end my life|umbringen|mir das leben|quitarme la vida|me suicid\w*|en finir|farla finita|togliermi la vita|zelfmoord|mezelf|acabar com|tirar a vida|pills|tabletten|pastillas|cachets|pillole|pillen|comprimidos|goodbye|abschied\w*|despedida|adieu|addio|afscheid)\b/,
  },
  // Back pain and a temperature with the flu or a cold, no urinary symptom: not a kidney infection.
  kidney_infection: {
    benign: /\b(?:flu|cold|covid|grippe|erkaltung|erkaeltung|gripe|resfriado|rhume|influenza|raffreddore|griep|verkoudheid|verkouden|constipacao|constipad[oa])\b/,
    unless: /\b(?:uti|bladder|cystitis|pee\w*|wee|urin\w*|burning|blase\w*|brennen|pinkeln|cistitis|escozor|orinar|orina|cystite|pipi|brulure\w*|cistite|bruciore|pipi|blaas\w*|plassen|branderig|ardor|xixi)\b/,
  },
  // A mild ache after sport or sex, "not bad": not torsion, unless sudden, severe or swollen.
  testicular_pain: {
    benign: /\b(?:dull|zeurend\w*|dumpf\w*|sordo|sourde|surda|for (?:a few|several|\d+) weeks|seit wochen|desde hace semanas|depuis des semaines|da settimane|al weken|ha semanas|nicht schlimm|not bad|mild|slight|slightly|leicht\w*|leve|leger\w*|lieve|lichte?|ligeir\w*|after sex|nach dem sex|gym|sport|cycling|radfahren|bici|velo|fietsen|bicicleta|gimnasio|palestra|ginasio)\b/,
    unless: /\b(?:sudden\w*|severe|swollen|vomit\w*|sick|plotzlich|stark\w*|geschwollen|erbrech\w*|de repente|fuerte|hinchad[oa]|vomit\w*|soudain\w*|brutal\w*|gonfle\w*|improvvis\w*|forte|gonfi[oa]|plotseling|hevig\w*|gezwollen|subit\w*|inchad[oa])\b/,
  },
  // "Nearly fainted when I saw the price", "collapsed on the sofa after work": a figure of speech.
  fainting: {
    benign: /\b(?:(?:hes|shes|im|he is|she is|i am|i m) (?:fine|ok|okay|alright|all right|better)(?: now| again)?|(?:es geht (?:ihm|ihr|mir) (?:wieder )?gut)|(?:ya )?esta bien|(?:il|elle) va bien|sta bene|gaat (?:weer )?goed|esta bem|gym|sauna|palestra|gimnasio|ginasio|fitness|price|prices|prijs|preis|precio|prix|prezzo|preco|bill|rechnung|factura|facture|fattura|factuur|fatura|sofa|couch|canape|divano|bank|bed|bett|cama|lit|letto|bed)\b/,
    unless: /\b(?:wake|waking|woke|aufwach\w*|wach|despiert\w*|reacciona|reveill\w*|sveglia|wakker|acord\w*|unconscious|bewusstlos|inconscient\w*|incoscient\w*|bewusteloos|inconsciente|head|kopf|cabeza|tete|testa|hoofd|cabeca|respond\w*|breath\w*|atm\w*|respir\w*|adem\w*)\b/,
  },
  // "My laptop had a fit", "mein Chef hat einen Anfall bekommen", "slappe lach aanval": not a seizure.
  seizure: {
    benign: /\b(?:threshold|schwelle|krampfschwelle|umbral|seuil|soglia|drempel|limiar|laptop|computer|pc|boss|chef|jefe|patron|capo|baas|chefe|lach|lachen|risa|rire|ridere|riso|ridarella|giggles|laughing|panic|panik|panico|panique|angst|paniek|crampe?s?|calambres?|caibras?|kramp|krampf|wadenkrampf|crampo|eyelid|augenlid|parpado|paupiere|palpebra|ooglid)\b/,
    unless: /\b(?:shak\w*|jerk\w*|convuls\w*|zuck\w*|respond\w*|reagiert|responde|repond\w*|rispond\w*|reageert|unconscious|bewusstlos|inconscient\w*|bewusteloos|inconsciente|foam\w*|schaum|espuma|mousse|schiuma|schuim)\b/,
  },
  // A nurse in the family, a vaccine: the word, not the illness.
  sepsis: {
    benign: /\b(?:nurse|krankenschwester|pfleger\w*|enfermer[oa]s?|infirmier\w*|infermier[ae]?|verpleeg\w*|vaccin\w*|impf\w*|vacun\w*|vacin\w*)\b/,
    unless: /\b(?:confus\w*|verwirrt|mottled|marmor\w*|shiver\w*|rigors?|schuttelfrost|escalofrios|frissons|brividi|rillingen|calafrios|dying|sterb\w*)\b/,
  },
  // A rash that fades under a glass (blanching) is the reassuring finding of the glass test (NICE NG240).
  meningitis_blanching: {
    benign: /\b(?:fades?|fading|disappears?|goes away|verschwind\w*|geht weg|desaparece\w*|se va|disparai\w*|s efface\w*|spariscono|sparisce|scompa\w*|verdwijn\w*|wegdrukbaar|desaparecem)\b/,
    unless: /\b(?:doesnt|does not|dont|do not|wont|not|nicht|no|ne|pas|non|niet|nao|sin|senza|geen|kein\w*) (?:\w+ )?(?:fade|fades|disappear\w*|go away|goes away|verschwind\w*|weg|desaparec\w*|disparai\w*|efface\w*|spar\w*|scompa\w*|verdwijn\w*|wegdrukken)\b|\b(?:stiff|steif\w*|rigid[oa]|raide|nek|neck|nacken|nuca|nuque|collo|pescoco|drows\w*|schlafrig|somnolen\w*|suf)\b/,
  },
  meningitis: {
    benign: /\b(?:vaccin\w*|impf\w*|vacun\w*|vacin\w*|meningokok\w*|meningococ\w*|jabs?|shot|prik|piqure|puntura|spritze|injection|injectie|injecao|inyeccion)\b/,
    unless: /\b(?:stiff|steif\w*|rigid[oa]|raide|nek|rash|flecken|manchas|taches|macchie|vlek\w*|glass|glas|vaso|verre|bicchiere|copo|fever|fieber|fiebre|fievre|febbre|koorts|febre)\b/,
  },
  // Cut or burnt while cooking, shaving or by accident: an injury, not self-harm.
  self_harm: {
    benign: /\b(?:cook\w*|kitchen|shav\w*|oven|accident\w*|by mistake|kochen|kuche|rasier\w*|versehen|cocin\w*|afeit\w*|sin querer|cuisin\w*|rasage|rasant|par accident|cucin\w*|rasa\w*|per sbaglio|koken|keuken|scheren|per ongeluk|cozinh\w*|barbe\w*|barba|sem querer)\b/,
    unless: /\b(?:on purpose|deliberately|again|absichtlich|wieder|a proposito|adrede|expres|exprès|de nouveau|apposta|di nuovo|expres|expresso|opzettelijk|weer|de proposito|outra vez)\b/,
  },
};

// A time phrase that dates the start of a treatment ("started Ozempic 2 months ago", "seit 3 Monaten
// nehme ich", "j'ai pris la pilule du lendemain il y a 3 semaines") dates the treatment, not the
// symptom: a clause with one of these verbs does not make the sentence past history.
const TREATMENT_START_RE = new RegExp(`\\b(?:${[
  'start\\w*', 'began', 'begun', 'on (?:ozempic|wegovy|mounjaro|saxenda|the pill|prep|finasteride)', 'taking', 'took', 'taken', 'using', 'injecting', 'prescribed',
  'angefangen', 'begonnen', 'nehme', 'genommen', 'eingenommen', 'spritze', 'gestartet',
  'empece', 'empezado', 'comence', 'tomo', 'tome', 'tomado', 'iniciado',
  'commence', 'debute', 'pris', 'prends',
  'iniziato', 'cominciato', 'prendo', 'preso',
  'begonnen', 'gestart', 'neem', 'genomen', 'slik',
  'comecei', 'iniciei', 'tomei', 'tomo',
].join('|')})\\b`);
// Recent onset ("since yesterday", "seit gestern", "depuis hier", "2 hours ago") is the present.
const RECENT_RE = new RegExp(`\\b(?:${[
  'since (?:yesterday|last night|this morning|today|tonight|(?:an|one|two|\\d+) hours?)', 'yesterday', 'last night', 'an hour ago', '\\d+ (?:hours?|hrs?|mins?|minutes?) ago', 'just now', 'for (?:\\d+|a few|two|three) (?:hours|days)',
  'seit (?:gestern|heute|heute morgen|heute nacht|letzter nacht|\\d+ stunden|einer stunde|ein paar stunden)', 'gestern', 'heute nacht', 'vor (?:\\d+|einer|zwei) (?:stunden?|minuten)',
  'desde (?:ayer|anoche|esta manana|hace (?:\\d+|una|dos) horas?)', 'ayer', 'anoche', 'hace (?:\\d+|una|dos) (?:horas?|minutos)',
  'depuis (?:hier|cette nuit|ce matin|\\d+ ?h|\\d+ heures)', 'hier', 'cette nuit', 'il y a (?:\\d+|une|deux) (?:heures?|minutes)',
  'da ieri', 'ieri', 'stanotte', 'stanotte', 'da (?:\\d+|un|due) or[ae]', '(?:\\d+|un|due) or[ae] fa',
  'sinds (?:gisteren|vannacht|vanochtend|vanmorgen|\\d+ uur)', 'gisteren', 'vannacht', '(?:\\d+|een|twee) uur geleden',
  'desde ontem', 'ontem', 'esta noite', 'ha (?:\\d+|uma|duas) horas?',
].join('|')})\\b`);
// Someone of the family named with a past event ("my father had pancreatitis", "meine Mutter hatte
// eine Thrombose", "mon père a fait un AVC"): family history, not the writer's present. A partner or a
// child writing about what is happening now does not use these words ("my husband can't speak").
const FAMILY_RE = new RegExp(`\\b(?:${[
  'grandad', 'grandpa', 'grandma', 'granny', 'opa', 'oma', 'abuel[oa]', 'nonn[oa]', 'grand (?:pere|mere)', 'avo',
  'my (?:father|mother|dad|mum|mom|grandfather|grandmother|grandma|grandpa|granddad|grandad|nan|nana|brother|sister|uncle|aunt|cousin|parents)', 'family history', 'runs in (?:my|the) family',
  '(?:mein|meine|meinem|meiner) (?:vater|mutter|papa|mama|opa|oma|grossvater|grossmutter|bruder|schwester|onkel|tante|eltern)', 'familie', 'familiar\\w*', 'in der familie',
  'mi (?:padre|madre|papa|mama|abuelo|abuela|hermano|hermana|tio|tia)', 'mis padres', 'en (?:mi|la) familia', 'antecedentes familiares',
  '(?:mon|ma|mes) (?:pere|mere|papa|maman|grand pere|grand mere|frere|soeur|oncle|tante|parents)', 'dans (?:ma|la) famille', 'antecedents familiaux',
  '(?:mio|mia) (?:padre|madre|papa|mamma|nonno|nonna|fratello|sorella|zio|zia)', 'i miei genitori', 'in famiglia', 'familiarita',
  '(?:mijn|m n) (?:vader|moeder|pa|ma|opa|oma|broer|zus|oom|tante|ouders)', 'in (?:mijn|de) familie', 'familie',
  '(?:meu|minha) (?:pai|mae|avo|irmao|irma|tio|tia)', 'os meus pais', 'na (?:minha )?familia', 'historico familiar',
].join('|')})\\b`);
const FAMILY_PAST_RE = new RegExp(`\\b(?:${[
  'had', 'has had', 'died', 'passed away', 'suffered', 'history',
  'hatte', 'hatten', 'gehabt', 'starb', 'gestorben', 'erlitten',
  'tuvo', 'tenia', 'murio', 'ha tenido', 'sufrio', 'padecio',
  'avait', 'a eu', 'a fait', 'est mort\\w*', 'est decede\\w*', 'decede\\w*',
  'aveva', 'ha avuto', 'e morto', 'e morta', 'morto', 'morta',
  'had', 'heeft gehad', 'overleden', 'gehad',
  'teve', 'tinha', 'morreu', 'sofreu',
].join('|')})\\b`);
// A hypothetical question ("what if an erection lasts more than 4 hours?", "was ist, wenn ...?",
// "et si ...?", "can Ozempic cause pancreatitis?"): information, not the writer's present.
const HYPOTHETICAL_RE = new RegExp(`\\b(?:${[
  'what if', 'what (?:should|do|would) (?:i|we) do if', 'how (?:much|many)', 'if (?:you|one)', 'wie ?viel\\w*', 'wenn man', 'cuant[oa]s?', 'si uno', 'combien', 'si on', 'quant[oei]', 'se uno', 'hoeveel', 'als je', 'quant[oa]s?', 'se a gente', 'what happens if', 'in case', 'if (?:i|you|he|she|someone|ever)', 'is it (?:normal|dangerous|possible|true)', 'can (?:it|this|ozempic|wegovy|mounjaro|viagra|sildenafil|tadalafil|finasteride|the pill|\\w+) (?:cause|give|lead)', 'risk of', 'side effect', 'how do i know', 'how would i know', 'when should i', 'signs of',
  'was (?:ist|passiert|mache ich|tun),? wenn', 'wenn ich', 'falls', 'kann (?:es|das|\\w+) \\w* ?(?:verursachen|auslosen)', 'risiko', 'nebenwirkung\\w*', 'woran erkenne', 'ist es normal',
  'que pasa si', 'y si', 'que hago si', 'si (?:tengo|me|llego)', 'en caso de', 'puede (?:causar|provocar|dar)', 'riesgo de', 'efecto secundario', 'es normal',
  'et si', 'que faire si', 'que se passe t il si', 'si (?:j ai|je|jamais|on)', 'en cas de', 'peut (?:il |elle )?(?:causer|provoquer|donner)', 'risque de', 'effet secondaire', 'est ce normal', 'est ce que .{0,40}(?:peut|risque)',
  'e se', 'cosa (?:succede|faccio|devo fare) se', 'se (?:ho|mi|dovessi)', 'in caso di', 'puo (?:causare|provocare|dare)', 'rischio di', 'effetto collaterale', 'e normale',
  'wat als', 'wat (?:moet|doe) ik als', 'als ik', 'in geval van', 'kan (?:het|dit|\\w+) (?:veroorzaken|geven)', 'risico op', 'bijwerking', 'is het normaal',
  'e se', 'o que (?:acontece|faco) se', 'se eu', 'em caso de', 'pode (?:causar|provocar|dar)', 'risco de', 'efeito (?:secundario|colateral)', 'e normal',
].join('|')})\\b`);

// Cues that make a sentence hypothetical with or without a question mark ("risk of an overdose if I skip a week").
const STRONG_HYPOTHETICAL_RE = new RegExp(`^ (?:what if|what happens if|was (?:ist|passiert) wenn|was wenn|und wenn|et si|que pasa si|y si|e se|wat als|o que acontece se|cosa succede se) |\\b(?:${[
  'risk of', 'in case of', 'signs of', 'warning signs', 'can (?:you|one|people) (?:overdose|die|get)', 'kann man (?:\\w+ )?(?:uberdosier\\w*|sterben)', 'se puede (?:tener una )?(?:sobredosis|morir)', 'peut on (?:faire une overdose|mourir)', 'si puo (?:andare in overdose|morire)', 'kun je (?:\\w+ )?(?:overdosis|doodgaan)', 'pode se (?:ter uma )?(?:overdose|morrer)', 'what \\w+ level', 'which level', 'counts as', 'ab welchem wert', 'a partir de quel', 'a partir de que', 'da che valore', 'vanaf welke', 'a partir de que valor', 'how (?:do|can|would) (?:i|you) (?:recogni[sz]e|tell|know)', 'woran erkennt', 'wie erkenne', 'como (?:se )?reconoc\\w*', 'comment reconna\\w*', 'come si riconosc\\w*', 'hoe herken\\w*', 'como reconhec\\w*',
  '(?:need|get|have) the \\w+ vaccin\\w*', 'vaccin\\w* (?:against|contre|contro|tegen)', '\\w*impfung', 'vacuna de', 'vacina da', 'vaccino contro', 'vaccinatie', 'risiko (?:von|einer|eines|fur)', 'im falle', 'riesgo de', 'en caso de', 'risque de', 'en cas de', 'rischio di', 'in caso di', 'risico op', 'in geval van', 'risco de', 'em caso de',
].join('|')})\\b`);
const CAUSE_QUESTION_RE = /^ (?:can|could|does|do|may|might|is|will|would|kann|konnen|koennen|ist|macht|erhoht|erhoeht|gibt|puede|pueden|es|aumenta|peut|est ce que|augmente|le|la|l|les|el|il|lo|puo|possono|kan|kun|kunt|kunnen|geeft|verhoogt|is|pode|podem|e|o|a)\b.*\b(?:cause\w*|trigger\w*|lead to|give|make|increase\w*|lower\w*|hacer|uitlok\w*|\w*risiko|\w*risico|\w*rischio|machen|macht|erhoh\w*|erhoeh\w*|aumenta\w*|augment\w*|rendre|rend|fare|maken|verhog\w*|kans op|effe\w*|effect\w*|efect\w*|efeit\w*|verursach\w*|ausl(?:o|oe)s\w*|caus\w*|provoc\w*|provoqu\w*|donner|dare|veroorzak\w*|geven|dar|risk\w*|risiko|riesgo|risque|rischio|risico|risco|side effect|nebenwirkung|efecto secundario|effet secondaire|effetto collaterale|bijwerking|efeito (?:secundario|colateral))\b/;
const sentenceWords = (p: Prepared, s: number) => ` ${p.words.filter((_, i) => p.sentence[i] === s).join(' ')} `;
const clauseWords = (p: Prepared, c: number) => ` ${p.words.filter((_, i) => p.clause[i] === c).join(' ')} `;

/**
 * Past history: the match's clause names a past time and no recent one; or another clause of the
 * sentence does, that clause dates no treatment start, and nothing in the sentence is present or
 * recent. Family history: a family member named with a past event in the sentence.
 */
function pastHistory(p: Prepared, at: number): boolean {
  const s = p.sentence[at]!;
  const sentence = sentenceWords(p, s);
  // The past verb in the flag's own clause: "my mum is confused, breathing fast, she had a UTI" is about now.
  if (FAMILY_RE.test(sentence) && FAMILY_PAST_RE.test(clauseWords(p, p.clause[at]!)) && !RECENT_RE.test(clauseWords(p, p.clause[at]!))) return true;
  const own = clauseWords(p, p.clause[at]!);
  if (PRESENT_RE.test(own) || RECENT_RE.test(own)) return false;
  // A past time in the flag's own clause dates the flag ("took an overdose 10 years ago").
  if (HISTORY_RE.test(own)) return true;
  // "Now fine", "ahora bien", "nu goed", "ora sto bene": the present named as resolved is not a current flag.
  const unresolved = sentence.replace(RESOLVED_RE, ' ');
  if (PRESENT_RE.test(unresolved) || RECENT_RE.test(unresolved)) return false;
  const clauses = new Set(p.clause.filter((_, i) => p.sentence[i] === s));
  return [...clauses].some((c) => {
    const w = clauseWords(p, c);
    return HISTORY_RE.test(w) && !TREATMENT_START_RE.test(w);
  });
}

function benignContext(p: Prepared, category: EmergencyCategory, at: number): boolean {
  const sentence = sentenceWords(p, p.sentence[at]!);
  const rules = [BENIGN_CONTEXT[category], ...(category === 'overdose' ? [BENIGN_CONTEXT.overdose_prescribed, BENIGN_CONTEXT.overdose_small] : []), ...(category === 'meningitis' ? [BENIGN_CONTEXT.meningitis_blanching] : [])];
  return rules.some((rule) => !!rule && rule.benign.test(sentence) && !rule.unless.test(sentence));
}

/** A hypothetical question: the sentence asks, and asks "what if" or "can X cause" (not "my chest hurts, what do I do?"). */
function hypothetical(p: Prepared, at: number): boolean {
  const s = p.sentence[at]!;
  // The cue comes before the flag: "what if my chest hurts?", not "my chest hurts, what if it is my heart?".
  let first = at;
  while (first > 0 && p.sentence[first - 1] === s) first--;
  const before = ` ${p.words.slice(first, at + 1).join(' ')} `;
  if (STRONG_HYPOTHETICAL_RE.test(before)) return true;
  if (!p.asked.has(s)) return false;
  // "When should a UTI be checked for a kidney infection?", "wann ist es eine Nierenbeckenentzundung?"
  if (/^ (?:when|wann|cuando|quand|quando|wanneer)\b/.test(before)) return true;
  // "Can Ozempic cause pancreatitis?": asks whether a medicine causes it, whatever the word order.
  return HYPOTHETICAL_RE.test(before) || CAUSE_QUESTION_RE.test(sentenceWords(p, s));
}

export type MatchReading = 'emergency' | 'history' | 'question' | 'negated';

export interface RedFlagReading {
  /** Current red flags of the emergency tier: answered with the emergency notice and flagged for the team. */
  emergencies: EmergencyMatch[];
  /** Current red flags of the urgent tier: "contact a doctor today" with the out-of-hours number, and a desk flag with a deadline. */
  urgent: EmergencyMatch[];
  /** Past or family history ("I had chest pain last year") and negated suicidal mentions: shown to the team, no notice. */
  history: EmergencyMatch[];
  /** Hypothetical questions ("what if an erection lasts 4 hours?"): no notice, no flag (suicidal ones are history). */
  questions: EmergencyMatch[];
  /** Negated mentions only ("no chest pain"): neither. */
  negated: EmergencyMatch[];
}

/** How a match at these words reads: negated, a hypothetical question, past history, or current. */
function readingAt(p: Prepared, category: EmergencyCategory, start: number, end: number, locale: DetectorLocale, source = ''): MatchReading {
  let reading: MatchReading =
    negated(p, start, end, locale) || (CO_OCCURRENCE.has(category) && lastElementNegated(p, start, end, locale, source)) ? 'negated'
      : benignContext(p, category, start) ? 'negated'
      : hypothetical(p, start) ? 'question'
      : pastHistory(p, start) ? 'history'
      : 'emergency';
  // "No chest pain since last week": it was there last week (history). Negated thoughts of suicide or self-harm, and questions about them, are shown to a person.
  if (reading === 'negated' && (CRISIS_CATEGORIES.has(category) || pastHistory(p, start))) reading = 'history';
  if (reading === 'question' && CRISIS_CATEGORIES.has(category)) reading = 'history';
  return reading;
}

/**
 * The text's red flags, each category read as current (by tier), past history, a question or negated (see above).
 * `model`: another statistical layer than the shipped one; `layers: 'model'` reads with the model alone
 * (the training script tunes the model's thresholds with it, on held-back development items).
 */
export function readRedFlags(text: string, model?: ModelWeights, layers: 'all' | 'model' = 'all'): RedFlagReading {
  const p = prepare(text);
  const best = new Map<EmergencyCategory, { reading: MatchReading; match: EmergencyMatch }>();
  const rank: Record<MatchReading, number> = { emergency: 4, history: 3, question: 2, negated: 1 };
  for (const c of layers === 'all' ? COMPILED : []) {
    if (best.get(c.category)?.reading === 'emergency') continue;
    for (const t of p.texts) {
      for (const m of t.matchAll(c.global)) {
        const start = wordIndexAt(t, m.index);
        const end = Math.max(start, wordIndexAt(t, m.index + m[0].length));
        const reading = readingAt(p, c.category, start, end, c.locale, c.source);
        const prev = best.get(c.category);
        if (!prev || rank[reading] > rank[prev.reading]) {
          best.set(c.category, { reading, match: { category: c.category, locale: c.locale, pattern: c.source, tier: tierOf(c.category), by: 'rule', evidence: [m[0].trim()] } });
        }
        if (reading === 'emergency') break;
      }
      if (best.get(c.category)?.reading === 'emergency') break;
    }
  }
  // The symptom lexicon (src/lib/emergency-lexicon.ts): a class's signs together, none negated, read
  // at the first sign like a rule match. It stands in for a rule (by: 'rule', the pattern names the signs).
  for (const t of layers === 'all' ? p.texts : []) {
    for (const hit of lexiconHits(t, (start, end) => !negated(p, start, end, 'all'))) {
      const category = hit.category as EmergencyCategory;
      if (best.get(category)?.reading === 'emergency') continue;
      const first = hit.signs.reduce((a, b) => (b.word < a.word ? b : a));
      const reading = readingAt(p, category, first.word, first.end, 'all', hit.signs.map((x) => x.text).join(' '));
      const prev = best.get(category);
      if (!prev || rank[reading] > rank[prev.reading]) {
        best.set(category, { reading, match: { category, locale: 'all', pattern: `lexicon: ${hit.signs.map((x) => x.sign).join(' + ')}`, tier: tierOf(category), by: 'rule', evidence: hit.signs.map((x) => x.text) } });
      }
    }
  }
  // The statistical layer: classes the rules did not read as current, read in the same way (negation, question, history).
  // A class a rule already read keeps the rule's reading; the model's own hits are read more
  // cautiously: any negation earlier in the clause negates them.
  // Its tier: a life-threatening class gets the emergency notice only at or above the emergency
  // threshold; between the two thresholds it is answered at the urgent tier (a doctor today, a desk
  // flag with a deadline), so an uncertain model never says "call 112" on its own.
  const m = model ?? MODEL;
  for (const hit of modelHits<EmergencyCategory>(p.words, p.sentence, m)) {
    if (best.has(hit.category) || RULES_ONLY.has(hit.category)) continue;
    const reading = clauseNegated(p, hit.word) ? (CRISIS_CATEGORIES.has(hit.category) ? 'history' : 'negated') : readingAt(p, hit.category, hit.word, hit.word, 'all');
    const tier: RedFlagTier = tierOf(hit.category) === 'emergency' && hit.score >= m.thresholds.emergency ? 'emergency' : 'urgent';
    best.set(hit.category, { reading, match: { category: hit.category, locale: 'all', pattern: `model ${hit.score.toFixed(2)}`, tier, by: 'model', evidence: hit.features, score: hit.score } });
  }
  const of = (r: MatchReading, tier?: RedFlagTier) => EMERGENCY_CATEGORIES.filter((c) => best.get(c)?.reading === r && (!tier || best.get(c)!.match.tier === tier)).map((c) => best.get(c)!.match);
  return { emergencies: of('emergency', 'emergency'), urgent: of('emergency', 'urgent'), history: of('history'), questions: of('question'), negated: of('negated') };
}

/** Every category the text raises as a current emergency (first matching pattern of each), in EMERGENCY_CATEGORIES order. */
export function detectEmergency(text: string): EmergencyMatch[] {
  return readRedFlags(text).emergencies;
}

/** Every category a pattern matches, whatever its reading (the corpus coverage test and the report). */
export function matchAnyReading(text: string): EmergencyMatch[] {
  const r = readRedFlags(text);
  return [...r.emergencies, ...r.urgent, ...r.history, ...r.questions, ...r.negated];
}

export const emergencyCategories = (text: string): EmergencyCategory[] => detectEmergency(text).map((m) => m.category);

export const mentionsEmergency = (text: string): boolean => detectEmergency(text).length > 0;

// Dehydration in a side-effect report, in the seven languages (a GLP-1 side-effect rule, S1: "dehydration
// ... deterioration of renal function"; docs/red-flags.md). Not an emergency by itself: a desk flag.
const DEHYDRATION = new RegExp(
  `\\b(?:${[
    'dehydrat\\w*', 'de hydrat\\w*', '(?:cant|cannot|can not) keep (?:any )?(?:water|fluids?|liquids?|drinks?) down',
    'dehydriert\\w*', 'dehydration', 'ausgetrocknet', 'fl(?:u|ue)ssigkeitsmangel', 'exsikkose',
    'deshidrat\\w*', 'deshydrat\\w*', 'disidrat\\w*', 'desidrat\\w*', 'uitgedroogd', 'uitdroging', 'dehydratie',
  ].join('|')})\\b`,
);
export const mentionsDehydration = (text: string): boolean => DEHYDRATION.test(normaliseText(text));

const OR: Record<string, string> = { en: 'or', de: 'oder', es: 'o', fr: 'ou', it: 'o', nl: 'of', pt: 'ou' };

// The notice: what to do now, then what happened to the text ('message', side-effect 'report',
// journal 'note', or questionnaire 'answers'): each is true, because the text raised a flag on the
// clinician desk (red_flags). One owner for every notice (questionnaires call this too).
export type NoticeAbout = 'message' | 'report' | 'note' | 'answers';
const NOTICE: Record<Locale, { call: (n: string) => string; urgent: (ooh: string, n: string) => string; crisis: (lines: string) => string; answers: (n: string) => string } & Record<Exclude<NoticeAbout, 'answers'>, string>> = {
  en: {
    call: (n) => `If you have severe or sudden symptoms such as chest pain, difficulty breathing, a severe allergic reaction or thoughts of suicide, call ${n} now. This service is not an emergency service.`,
    urgent: (ooh, n) => `What you describe needs a doctor today: contact your doctor today${ooh ? `, or call ${ooh} out of hours` : ' or an out-of-hours service'}. If it gets worse or you feel very unwell, call ${n}.`,
    crisis: (lines) => `You can talk to someone now, free and confidential: ${lines}.`,
    answers: (n) => `Your answers suggest you may need urgent care. Call ${n} now or go to the nearest emergency department. This questionnaire cannot continue.`,
    message: 'Your message has been passed to the medical team.',
    report: 'Your report has been passed to the medical team.',
    note: 'Your note has been passed to the medical team.',
  },
  de: {
    call: (n) => `Bei schweren oder plötzlichen Beschwerden wie Brustschmerzen, Atemnot, einer schweren allergischen Reaktion oder Suizidgedanken rufen Sie jetzt ${n} an. Dieser Dienst ist kein Notdienst.`,
    urgent: (ooh, n) => `Was Sie beschreiben, sollte heute ärztlich angesehen werden: Wenden Sie sich heute an Ihre Praxis${ooh ? ` oder außerhalb der Sprechzeiten an ${ooh}` : ' oder an den Bereitschaftsdienst'}. Wird es schlimmer oder geht es Ihnen sehr schlecht, rufen Sie ${n} an.`,
    crisis: (lines) => `Sie können jetzt mit jemandem sprechen, kostenlos und vertraulich: ${lines}.`,
    answers: (n) => `Ihre Antworten deuten darauf hin, dass Sie dringend Hilfe brauchen. Rufen Sie jetzt ${n} an oder gehen Sie in die nächste Notaufnahme. Dieser Fragebogen kann nicht fortgesetzt werden.`,
    message: 'Ihre Nachricht wurde an das medizinische Team weitergeleitet.',
    report: 'Ihre Meldung wurde an das medizinische Team weitergeleitet.',
    note: 'Ihre Notiz wurde an das medizinische Team weitergeleitet.',
  },
  es: {
    call: (n) => `Si tienes síntomas graves o repentinos como dolor en el pecho, dificultad para respirar, una reacción alérgica grave o pensamientos suicidas, llama ahora al ${n}. Este servicio no es un servicio de urgencias.`,
    urgent: (ooh, n) => `Lo que describes necesita un médico hoy: contacta hoy con tu médico${ooh ? ` o, fuera de horario, llama al ${ooh}` : ' o con un servicio de guardia'}. Si empeora o te encuentras muy mal, llama al ${n}.`,
    crisis: (lines) => `Puedes hablar con alguien ahora, gratis y de forma confidencial: ${lines}.`,
    answers: (n) => `Sus respuestas indican que puede necesitar atención urgente. Llame ahora al ${n} o acuda a urgencias. Este cuestionario no puede continuar.`,
    message: 'Tu mensaje se ha enviado al equipo médico.',
    report: 'Tu notificación se ha enviado al equipo médico.',
    note: 'Tu nota se ha enviado al equipo médico.',
  },
  fr: {
    call: (n) => `En cas de symptômes graves ou soudains comme une douleur thoracique, des difficultés à respirer, une réaction allergique grave ou des pensées suicidaires, appelez le ${n} maintenant. Ce service n’est pas un service d’urgence.`,
    urgent: (ooh, n) => `Ce que vous décrivez doit être vu par un médecin aujourd’hui : contactez votre médecin aujourd’hui${ooh ? ` ou, en dehors des heures d’ouverture, appelez le ${ooh}` : ' ou un service de garde'}. Si cela s’aggrave ou si vous vous sentez très mal, appelez le ${n}.`,
    crisis: (lines) => `Vous pouvez parler à quelqu’un maintenant, gratuitement et en toute confidentialité : ${lines}.`,
    answers: (n) => `Vos réponses indiquent que vous pourriez avoir besoin de soins urgents. Appelez le ${n} maintenant ou rendez-vous aux urgences. Ce questionnaire ne peut pas continuer.`,
    message: 'Votre message a été transmis à l’équipe médicale.',
    report: 'Votre signalement a été transmis à l’équipe médicale.',
    note: 'Votre note a été transmise à l’équipe médicale.',
  },
  it: {
    call: (n) => `In caso di sintomi gravi o improvvisi come dolore al petto, difficoltà a respirare, una grave reazione allergica o pensieri suicidi, chiama subito il ${n}. Questo servizio non è un servizio di emergenza.`,
    urgent: (ooh, n) => `Quello che descrivi richiede un medico oggi: contatta oggi il tuo medico${ooh ? ` o, fuori orario, chiama il ${ooh}` : ' o la guardia medica'}. Se peggiora o ti senti molto male, chiama il ${n}.`,
    crisis: (lines) => `Puoi parlare con qualcuno adesso, gratis e in modo riservato: ${lines}.`,
    answers: (n) => `Le sue risposte indicano che potrebbe aver bisogno di cure urgenti. Chiami subito il ${n} o vada al pronto soccorso. Questo questionario non può continuare.`,
    message: 'Il tuo messaggio è stato inoltrato al team medico.',
    report: 'La tua segnalazione è stata inoltrata al team medico.',
    note: 'La tua nota è stata inoltrata al team medico.',
  },
  nl: {
    call: (n) => `Heeft u ernstige of plotselinge klachten zoals pijn op de borst, moeite met ademhalen, een ernstige allergische reactie of gedachten aan zelfdoding, bel dan nu ${n}. Deze dienst is geen spoeddienst.`,
    urgent: (ooh, n) => `Wat u beschrijft moet vandaag door een arts bekeken worden: neem vandaag contact op met uw huisarts${ooh ? ` of bel buiten kantooruren ${ooh}` : ' of buiten kantooruren met de huisartsenpost'}. Wordt het erger of voelt u zich erg ziek, bel dan ${n}.`,
    crisis: (lines) => `U kunt nu met iemand praten, gratis en vertrouwelijk: ${lines}.`,
    answers: (n) => `Uw antwoorden wijzen erop dat u mogelijk dringend zorg nodig heeft. Bel nu ${n} of ga naar de spoedeisende hulp. Deze vragenlijst kan niet verder.`,
    message: 'Uw bericht is doorgestuurd naar het medische team.',
    report: 'Uw melding is doorgestuurd naar het medische team.',
    note: 'Uw notitie is doorgestuurd naar het medische team.',
  },
  pt: {
    call: (n) => `Se tiver sintomas graves ou súbitos como dor no peito, dificuldade em respirar, uma reação alérgica grave ou pensamentos suicidas, ligue já para o ${n}. Este serviço não é um serviço de emergência.`,
    urgent: (ooh, n) => `O que descreve precisa de um médico hoje: contacte hoje o seu médico${ooh ? ` ou, fora de horas, ligue para o ${ooh}` : ' ou um serviço de atendimento permanente'}. Se piorar ou se sentir muito mal, ligue para o ${n}.`,
    crisis: (lines) => `Pode falar com alguém agora, de forma gratuita e confidencial: ${lines}.`,
    answers: (n) => `As suas respostas sugerem que pode precisar de cuidados urgentes. Ligue já para o ${n} ou dirija-se às urgências. Este questionário não pode continuar.`,
    message: 'A sua mensagem foi enviada à equipa médica.',
    report: 'A sua notificação foi enviada à equipa médica.',
    note: 'A sua nota foi enviada à equipa médica.',
  },
};

export interface EmergencyNotice {
  number: string;
  numbers: string[];
  non_emergency: { number: string; label: string }[];
  codes: string[];
  message: string;
  /** emergency: call the number now; urgent: a doctor today (the out-of-hours numbers are `non_emergency`). */
  tier: RedFlagTier;
  /** The country's crisis lines, named when the codes include suicidal or self-harm wording (else empty). */
  crisis_lines: { number: string; label: string }[];
}

/** Codes that name the country's crisis line: the detector's suicidal and self_harm, and questionnaire codes about them. */
const crisisCode = (c: string) => CRISIS_CATEGORIES.has(c as EmergencyCategory) || /suicid|self_harm|selfharm/.test(c);

/**
 * The notice for the patient's country (the shape of src/lib/emergency-schema.ts). Emergency tier:
 * the medical emergency number first (catalogue/countries.json lists it first), then the country's
 * other emergency numbers ("call 15 (or 112) now"). Urgent tier: "a doctor today", with the
 * country's out-of-hours number. Either way, suicidal or self-harm codes add the crisis line.
 * `codes` names what raised it.
 */
export function emergencyNotice(countryCode: string | null | undefined, locale: string, about: NoticeAbout = 'message', codes: readonly string[] = [], tier: RedFlagTier = 'emergency'): EmergencyNotice {
  const country = countryByCode(countryCode);
  const number = emergencyNumberFor(countryCode);
  const numbers = country?.emergency_numbers ?? [number];
  const others = numbers.filter((n) => n !== number);
  const lang: Locale = isLocale(locale) ? locale : 'en';
  const text = NOTICE[lang];
  const shown = others.length ? `${number} (${OR[lang]} ${others.join(', ')})` : number;
  const nonEmergency = (country?.non_emergency ?? []).map((n) => ({ ...n }));
  const crisis = codes.some(crisisCode) ? crisisLinesFor(countryCode) : [];
  const parts =
    tier === 'urgent'
      ? [text.urgent(nonEmergency.map((n) => n.number).join(` ${OR[lang]} `), number)]
      : [about === 'answers' ? text.answers(shown) : text.call(shown)];
  if (crisis.length) parts.push(text.crisis(crisis.map((l) => `${l.number} (${l.label})`).join(', ')));
  if (about !== 'answers') parts.push(text[about]);
  return { number, numbers: [...numbers], non_emergency: nonEmergency, codes: [...codes], message: parts.join(' '), tier, crisis_lines: crisis };
}

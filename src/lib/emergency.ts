// Emergency wording in free text (messages, side-effect reports) in the seven locales. A match does
// not block anything: the text is still delivered, flagged for the medical team, and the patient is
// shown the emergency number of their country (spec 1: the service is not an emergency service).
import { emergencyNumberFor } from './countries.ts';

// Lower-case, accent-free phrases; matched on word boundaries in normalised text.
const PHRASES: Record<string, string[]> = {
  en: ['chest pain', 'pain in my chest', 'difficulty breathing', "can't breathe", 'cannot breathe', 'short of breath', 'struggling to breathe',
    'severe allergic reaction', 'anaphylaxis', 'anaphylactic', 'throat is swelling', 'suicidal', 'suicide', 'kill myself', 'end my life', 'want to die'],
  de: ['brustschmerz', 'brustschmerzen', 'schmerzen in der brust', 'atemnot', 'kann nicht atmen', 'bekomme keine luft', 'schwere allergische reaktion',
    'anaphylaktisch', 'anaphylaxie', 'suizid', 'selbstmord', 'mich umbringen', 'nicht mehr leben'],
  es: ['dolor en el pecho', 'dolor de pecho', 'dificultad para respirar', 'no puedo respirar', 'reaccion alergica grave', 'anafilaxia', 'suicida',
    'suicidio', 'quitarme la vida', 'quiero morir'],
  fr: ['douleur thoracique', 'douleur a la poitrine', 'douleurs dans la poitrine', 'difficulte a respirer', 'je ne peux pas respirer', 'essoufflement',
    'reaction allergique grave', 'anaphylaxie', 'suicidaire', 'suicide', 'me tuer', 'en finir'],
  it: ['dolore al petto', 'dolore toracico', 'difficolta a respirare', 'non riesco a respirare', 'reazione allergica grave', 'anafilassi',
    'suicida', 'suicidi', 'suicidio', 'pensieri suicidi', 'togliermi la vita', 'voglio morire'],
  nl: ['pijn op de borst', 'borstpijn', 'moeite met ademhalen', 'kan niet ademen', 'benauwd', 'ernstige allergische reactie', 'anafylaxie',
    'suicidaal', 'zelfmoord', 'suicide', 'mezelf van het leven beroven', 'wil dood'],
  pt: ['dor no peito', 'dor toracica', 'dificuldade em respirar', 'dificuldade para respirar', 'nao consigo respirar', 'reacao alergica grave',
    'anafilaxia', 'suicida', 'suicidio', 'tirar a minha vida', 'quero morrer'],
};

const normalise = (text: string) =>
  ` ${text
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[’`]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')} `;

const NORMALISED = Object.values(PHRASES)
  .flat()
  .map((p) => normalise(p).trim());

export function mentionsEmergency(text: string): boolean {
  const t = normalise(text);
  return NORMALISED.some((p) => t.includes(` ${p} `) || t.includes(` ${p}s `));
}

const NOTICE: Record<string, (n: string) => string> = {
  en: (n) => `If you have severe or sudden symptoms such as chest pain, difficulty breathing, a severe allergic reaction or thoughts of suicide, call ${n} now. This service is not an emergency service. Your message has been passed to the medical team.`,
  de: (n) => `Bei schweren oder plötzlichen Beschwerden wie Brustschmerzen, Atemnot, einer schweren allergischen Reaktion oder Suizidgedanken rufen Sie jetzt ${n} an. Dieser Dienst ist kein Notdienst. Ihre Nachricht wurde an das medizinische Team weitergeleitet.`,
  es: (n) => `Si tienes síntomas graves o repentinos como dolor en el pecho, dificultad para respirar, una reacción alérgica grave o pensamientos suicidas, llama ahora al ${n}. Este servicio no es un servicio de urgencias. Tu mensaje se ha enviado al equipo médico.`,
  fr: (n) => `En cas de symptômes graves ou soudains comme une douleur thoracique, des difficultés à respirer, une réaction allergique grave ou des pensées suicidaires, appelez le ${n} maintenant. Ce service n’est pas un service d’urgence. Votre message a été transmis à l’équipe médicale.`,
  it: (n) => `In caso di sintomi gravi o improvvisi come dolore al petto, difficoltà a respirare, una grave reazione allergica o pensieri suicidi, chiama subito il ${n}. Questo servizio non è un servizio di emergenza. Il tuo messaggio è stato inoltrato al team medico.`,
  nl: (n) => `Heeft u ernstige of plotselinge klachten zoals pijn op de borst, moeite met ademhalen, een ernstige allergische reactie of gedachten aan zelfdoding, bel dan nu ${n}. Deze dienst is geen spoeddienst. Uw bericht is doorgestuurd naar het medische team.`,
  pt: (n) => `Se tiver sintomas graves ou súbitos como dor no peito, dificuldade em respirar, uma reação alérgica grave ou pensamentos suicidas, ligue já para o ${n}. Este serviço não é um serviço de emergência. A sua mensagem foi enviada à equipa médica.`,
};

export interface EmergencyNotice {
  number: string;
  message: string;
}

export function emergencyNotice(countryCode: string | null | undefined, locale: string): EmergencyNotice {
  const number = emergencyNumberFor(countryCode);
  return { number, message: (NOTICE[locale] ?? NOTICE.en)(number) };
}

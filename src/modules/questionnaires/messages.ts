// Localised texts of engine outcomes (seven locales). No health details beyond the outcome itself.
import type { Locale, Rule } from './catalogue.ts';

type T = Record<Locale, string>;

const KIND: Record<Rule['kind'], T> = {
  red_flag: {
    en: 'One of your answers may need urgent medical attention.',
    de: 'Eine Ihrer Antworten kann dringende ärztliche Hilfe erfordern.',
    es: 'Una de sus respuestas puede requerir atención médica urgente.',
    fr: 'L’une de vos réponses peut nécessiter une prise en charge médicale urgente.',
    it: 'Una delle sue risposte può richiedere assistenza medica urgente.',
    nl: 'Een van uw antwoorden kan dringende medische hulp vereisen.',
    pt: 'Uma das suas respostas pode exigir cuidados médicos urgentes.',
  },
  ineligible: {
    en: 'Based on your answers, this treatment cannot safely be prescribed online.',
    de: 'Aufgrund Ihrer Antworten kann diese Behandlung nicht sicher online verschrieben werden.',
    es: 'Según sus respuestas, este tratamiento no puede recetarse en línea de forma segura.',
    fr: 'D’après vos réponses, ce traitement ne peut pas être prescrit en ligne en toute sécurité.',
    it: 'In base alle sue risposte, questo trattamento non può essere prescritto online in sicurezza.',
    nl: 'Op basis van uw antwoorden kan deze behandeling niet veilig online worden voorgeschreven.',
    pt: 'Com base nas suas respostas, este tratamento não pode ser prescrito online com segurança.',
  },
  exclude_treatment: {
    en: 'Based on your answers, one of the treatments is not suitable for you.',
    de: 'Aufgrund Ihrer Antworten ist eine der Behandlungen für Sie nicht geeignet.',
    es: 'Según sus respuestas, uno de los tratamientos no es adecuado para usted.',
    fr: 'D’après vos réponses, l’un des traitements ne vous convient pas.',
    it: 'In base alle sue risposte, uno dei trattamenti non è adatto a lei.',
    nl: 'Op basis van uw antwoorden is een van de behandelingen niet geschikt voor u.',
    pt: 'Com base nas suas respostas, um dos tratamentos não é adequado para si.',
  },
  limit_strengths: {
    en: 'Based on your answers, only a lower or different strength of this treatment can be prescribed.',
    de: 'Aufgrund Ihrer Antworten kann diese Behandlung nur in einer niedrigeren oder anderen Stärke verschrieben werden.',
    es: 'Según sus respuestas, este tratamiento solo puede recetarse en una dosis menor o distinta.',
    fr: 'D’après vos réponses, ce traitement ne peut être prescrit qu’à un dosage plus faible ou différent.',
    it: 'In base alle sue risposte, questo trattamento può essere prescritto solo a un dosaggio più basso o diverso.',
    nl: 'Op basis van uw antwoorden kan deze behandeling alleen in een lagere of andere sterkte worden voorgeschreven.',
    pt: 'Com base nas suas respostas, este tratamento só pode ser prescrito numa dosagem mais baixa ou diferente.',
  },
  caution: {
    en: 'The doctor will check this answer carefully before prescribing.',
    de: 'Die Ärztin oder der Arzt prüft diese Antwort vor der Verschreibung sorgfältig.',
    es: 'El médico revisará esta respuesta con atención antes de recetar.',
    fr: 'Le médecin examinera attentivement cette réponse avant de prescrire.',
    it: 'Il medico valuterà attentamente questa risposta prima di prescrivere.',
    nl: 'De arts bekijkt dit antwoord zorgvuldig voordat er iets wordt voorgeschreven.',
    pt: 'O médico verificará esta resposta com cuidado antes de prescrever.',
  },
};

// The fallback for an alternative code without its own text.
const GENERAL_PRACTITIONER: T = {
  en: 'Please see your family doctor in person.', de: 'Bitte wenden Sie sich persönlich an Ihre Hausarztpraxis.', es: 'Acuda en persona a su médico de cabecera.',
  fr: 'Veuillez consulter votre médecin traitant en personne.', it: 'Si rivolga di persona al suo medico di base.', nl: 'Ga alstublieft persoonlijk naar uw huisarts.', pt: 'Consulte presencialmente o seu médico de família.',
};

const ALTERNATIVES: Record<string, T> = {
  general_practitioner: GENERAL_PRACTITIONER,
  dermatologist: {
    en: 'Please see a dermatologist in person.', de: 'Bitte lassen Sie sich persönlich dermatologisch untersuchen.', es: 'Acuda en persona a un dermatólogo.',
    fr: 'Veuillez consulter un dermatologue en personne.', it: 'Si rivolga di persona a un dermatologo.', nl: 'Ga alstublieft persoonlijk naar een dermatoloog.', pt: 'Consulte presencialmente um dermatologista.',
  },
  sexual_health_clinic: {
    en: 'Please visit a sexual health clinic.', de: 'Bitte suchen Sie eine Beratungsstelle für sexuelle Gesundheit auf.', es: 'Acuda a un centro de salud sexual.',
    fr: 'Veuillez vous rendre dans un centre de santé sexuelle.', it: 'Si rivolga a un centro per la salute sessuale.', nl: 'Ga alstublieft naar een soa-poli of centrum voor seksuele gezondheid.', pt: 'Dirija-se a uma consulta de saúde sexual.',
  },
  copper_iud: {
    en: 'A copper IUD fitted within 5 days is the most effective option: contact a doctor or clinic today.', de: 'Eine Kupferspirale innerhalb von 5 Tagen ist die wirksamste Option: kontaktieren Sie noch heute eine Praxis.', es: 'Un DIU de cobre colocado en 5 días es la opción más eficaz: contacte hoy con un médico o clínica.',
    fr: 'Un DIU au cuivre posé dans les 5 jours est l’option la plus efficace : contactez un médecin aujourd’hui.', it: 'Una spirale al rame entro 5 giorni è l’opzione più efficace: contatti oggi un medico.', nl: 'Een koperspiraal binnen 5 dagen is de meest effectieve optie: neem vandaag contact op met een arts.', pt: 'Um DIU de cobre colocado em 5 dias é a opção mais eficaz: contacte hoje um médico.',
  },
  pregnancy_test: {
    en: 'Please take a pregnancy test and speak to a doctor.', de: 'Bitte machen Sie einen Schwangerschaftstest und sprechen Sie mit einer Ärztin oder einem Arzt.', es: 'Hágase una prueba de embarazo y hable con un médico.',
    fr: 'Faites un test de grossesse et parlez-en à un médecin.', it: 'Faccia un test di gravidanza e ne parli con un medico.', nl: 'Doe een zwangerschapstest en overleg met een arts.', pt: 'Faça um teste de gravidez e fale com um médico.',
  },
  hiv_test: {
    en: 'Please take a 4th-generation HIV test first; PrEP starts after a negative test within 7 days.', de: 'Bitte machen Sie zuerst einen HIV-Test der 4. Generation; PrEP beginnt nach einem negativen Test innerhalb von 7 Tagen.', es: 'Hágase primero una prueba de VIH de 4.ª generación; la PrEP empieza tras una prueba negativa de los últimos 7 días.',
    fr: 'Faites d’abord un test VIH de 4e génération ; la PrEP commence après un test négatif de moins de 7 jours.', it: 'Faccia prima un test HIV di 4ª generazione; la PrEP inizia dopo un test negativo degli ultimi 7 giorni.', nl: 'Doe eerst een hivtest van de 4e generatie; PrEP start na een negatieve test van hooguit 7 dagen oud.', pt: 'Faça primeiro um teste de VIH de 4.ª geração; a PrEP começa após um teste negativo com menos de 7 dias.',
  },
  hiv_specialist: {
    en: 'Please see an HIV specialist for care.', de: 'Bitte wenden Sie sich an eine HIV-Schwerpunktpraxis.', es: 'Acuda a un especialista en VIH.',
    fr: 'Veuillez consulter un spécialiste du VIH.', it: 'Si rivolga a uno specialista HIV.', nl: 'Ga alstublieft naar een hivbehandelaar.', pt: 'Consulte um especialista em VIH.',
  },
  hepatitis_b_specialist: {
    en: 'With a positive hepatitis B test, PrEP needs a specialist: please see an HIV or liver (hepatitis) specialist.', de: 'Bei positivem Hepatitis-B-Test gehört die PrEP in fachärztliche Hand: Bitte wenden Sie sich an eine HIV- oder Leber-(Hepatitis-)Schwerpunktpraxis.', es: 'Con una prueba de hepatitis B positiva, la PrEP requiere un especialista: acuda a un especialista en VIH o en hígado (hepatitis).',
    fr: 'Avec un test d’hépatite B positif, la PrEP relève d’un spécialiste : consultez un spécialiste du VIH ou du foie (hépatite).', it: 'Con un test dell’epatite B positivo, la PrEP richiede uno specialista: si rivolga a uno specialista HIV o del fegato (epatite).', nl: 'Met een positieve hepatitis B-test hoort PrEP bij een specialist: ga naar een hiv- of leverspecialist (hepatitis).', pt: 'Com um teste da hepatite B positivo, a PrEP precisa de um especialista: consulte um especialista em VIH ou em fígado (hepatite).',
  },
  emergency_services: {
    en: 'Call the emergency number or go to the nearest emergency department now.', de: 'Rufen Sie jetzt den Notruf oder gehen Sie in die nächste Notaufnahme.', es: 'Llame ahora al número de emergencias o acuda a urgencias.',
    fr: 'Appelez maintenant le numéro d’urgence ou rendez-vous aux urgences les plus proches.', it: 'Chiami subito il numero di emergenza o vada al pronto soccorso più vicino.', nl: 'Bel nu het alarmnummer of ga naar de dichtstbijzijnde spoedeisende hulp.', pt: 'Ligue já para o número de emergência ou dirija-se às urgências mais próximas.',
  },
};

export const HELD_FOR_REVIEW: T = {
  en: 'You changed an answer that decided an earlier result. A doctor will review your questionnaire before any treatment is offered.',
  de: 'Sie haben eine Antwort geändert, die ein früheres Ergebnis entschieden hat. Eine Ärztin oder ein Arzt prüft Ihren Fragebogen, bevor eine Behandlung angeboten wird.',
  es: 'Ha cambiado una respuesta que decidió un resultado anterior. Un médico revisará su cuestionario antes de ofrecer tratamiento.',
  fr: 'Vous avez modifié une réponse qui a décidé d’un résultat précédent. Un médecin examinera votre questionnaire avant de proposer un traitement.',
  it: 'Ha modificato una risposta che aveva determinato un risultato precedente. Un medico esaminerà il questionario prima di proporre un trattamento.',
  nl: 'U heeft een antwoord gewijzigd dat een eerdere uitkomst bepaalde. Een arts beoordeelt uw vragenlijst voordat er een behandeling wordt aangeboden.',
  pt: 'Alterou uma resposta que decidiu um resultado anterior. Um médico vai rever o seu questionário antes de oferecer tratamento.',
};

/** Explanations of single rules where the kind's general text would not say enough (the patient needs the options). */
const GENERAL_REASON: T = {
  en: 'Your answers show that this treatment is not suitable for you online.',
  de: 'Ihre Antworten zeigen, dass diese Behandlung online für Sie nicht geeignet ist.',
  es: 'Sus respuestas indican que este tratamiento no es adecuado para usted en línea.',
  fr: 'Vos réponses indiquent que ce traitement ne vous convient pas en ligne.',
  it: 'Le sue risposte indicano che questo trattamento non è adatto a lei online.',
  nl: 'Uw antwoorden laten zien dat deze behandeling online niet geschikt voor u is.',
  pt: 'As suas respostas indicam que este tratamento não é adequado para si online.',
};

const RULE_TEXT: Record<string, T> = {
  COUNTRY_NO_ONLINE_PRESCRIBING: {
    en: 'This service is not available in your country of residence for legal reasons.', de: 'Dieser Dienst ist in Ihrem Wohnsitzland aus rechtlichen Gründen nicht verfügbar.', es: 'Este servicio no está disponible en su país de residencia por motivos legales.',
    fr: 'Ce service n’est pas disponible dans votre pays de résidence pour des raisons légales.', it: 'Questo servizio non è disponibile nel suo paese di residenza per motivi legali.', nl: 'Deze dienst is om juridische redenen niet beschikbaar in uw woonland.', pt: 'Este serviço não está disponível no seu país de residência por razões legais.',
  },
  COPPER_IUD_MOST_EFFECTIVE: {
    en: 'A copper IUD fitted within 5 days is the most effective emergency contraception and an option when the pills do not suit you: ask a doctor or clinic today.', de: 'Eine Kupferspirale innerhalb von 5 Tagen ist die wirksamste Notfallverhütung und eine Option, wenn die Pillen nicht passen: fragen Sie noch heute eine Praxis.', es: 'Un DIU de cobre colocado en 5 días es la anticoncepción de urgencia más eficaz y una opción si las píldoras no le convienen: consulte hoy a un médico o clínica.',
    fr: 'Un DIU au cuivre posé dans les 5 jours est la contraception d’urgence la plus efficace et une option si les pilules ne vous conviennent pas : demandez aujourd’hui à un médecin.', it: 'Una spirale al rame entro 5 giorni è la contraccezione d’emergenza più efficace e un’opzione se le pillole non sono adatte: chieda oggi a un medico.', nl: 'Een koperspiraal binnen 5 dagen is de meest effectieve noodanticonceptie en een optie als de pillen niet passen: vraag het vandaag een arts.', pt: 'Um DIU de cobre colocado em 5 dias é a contraceção de emergência mais eficaz e uma opção se as pílulas não forem adequadas: fale hoje com um médico.',
  },
  LEVONORGESTREL_WEIGHT_OVER_70KG_OR_BMI_OVER_26: {
    en: 'Levonorgestrel may work less well above 70 kg or with a BMI over 26: ulipristal, a 3 mg levonorgestrel dose or a copper IUD are the options the doctor will consider.', de: 'Levonorgestrel wirkt über 70 kg oder bei einem BMI über 26 möglicherweise schlechter: Ulipristal, 3 mg Levonorgestrel oder eine Kupferspirale kommen in Frage.', es: 'El levonorgestrel puede ser menos eficaz con más de 70 kg o un IMC superior a 26: el médico valorará ulipristal, una dosis de 3 mg de levonorgestrel o un DIU de cobre.',
    fr: 'Le lévonorgestrel peut être moins efficace au-delà de 70 kg ou avec un IMC supérieur à 26 : l’ulipristal, une dose de 3 mg de lévonorgestrel ou un DIU au cuivre sont les options envisagées.', it: 'Il levonorgestrel può essere meno efficace oltre 70 kg o con un IMC superiore a 26: il medico valuterà ulipristal, una dose di 3 mg di levonorgestrel o una spirale al rame.', nl: 'Levonorgestrel werkt mogelijk minder goed boven 70 kg of bij een BMI boven 26: de arts overweegt ulipristal, 3 mg levonorgestrel of een koperspiraal.', pt: 'O levonorgestrel pode ser menos eficaz acima de 70 kg ou com IMC superior a 26: o médico irá considerar ulipristal, uma dose de 3 mg de levonorgestrel ou um DIU de cobre.',
  },
  DOXYCYCLINE_BREASTFEEDING: {
    en: 'Doxycycline is not used while breastfeeding: azithromycin is the option the doctor will consider.', de: 'Doxycyclin wird in der Stillzeit nicht angewendet: Azithromycin ist die Option, die der Arzt prüfen wird.', es: 'La doxiciclina no se usa durante la lactancia: la azitromicina es la opción que valorará el médico.',
    fr: 'La doxycycline n’est pas utilisée pendant l’allaitement : l’azithromycine est l’option que le médecin envisagera.', it: 'La doxiciclina non si usa durante l’allattamento: l’azitromicina è l’opzione che il medico valuterà.', nl: 'Doxycycline wordt niet gebruikt tijdens borstvoeding: azitromycine is de optie die de arts zal overwegen.', pt: 'A doxiciclina não é usada durante a amamentação: a azitromicina é a opção que o médico irá considerar.',
  },
  GLP1_AGE_75_OR_OVER: {
    en: 'Experience with this medicine from the age of 75 is limited: the doctor will review your treatment with extra care.', de: 'Die Erfahrung mit diesem Arzneimittel ab 75 Jahren ist begrenzt: Der Arzt prüft Ihre Behandlung besonders sorgfältig.', es: 'La experiencia con este medicamento a partir de los 75 años es limitada: el médico revisará su tratamiento con especial cuidado.',
    fr: 'L’expérience avec ce médicament à partir de 75 ans est limitée : le médecin examinera votre traitement avec une attention particulière.', it: 'L’esperienza con questo farmaco dai 75 anni in su è limitata: il medico valuterà il trattamento con particolare attenzione.', nl: 'De ervaring met dit geneesmiddel vanaf 75 jaar is beperkt: de arts beoordeelt uw behandeling extra zorgvuldig.', pt: 'A experiência com este medicamento a partir dos 75 anos é limitada: o médico irá rever o seu tratamento com especial cuidado.',
  },
  EATING_DISORDER_AT_RENEWAL: {
    en: 'Your answers suggest signs of an eating disorder: this medicine cannot be continued online. Please talk to your doctor.', de: 'Ihre Antworten deuten auf Anzeichen einer Essstörung hin: Dieses Arzneimittel kann nicht online fortgesetzt werden. Bitte sprechen Sie mit Ihrem Arzt.', es: 'Sus respuestas sugieren signos de un trastorno alimentario: este medicamento no puede continuarse en línea. Hable con su médico.',
    fr: 'Vos réponses évoquent des signes de trouble alimentaire : ce médicament ne peut pas être poursuivi en ligne. Parlez-en à votre médecin.', it: 'Le sue risposte indicano segni di un disturbo alimentare: questo farmaco non può essere proseguito online. Ne parli con il suo medico.', nl: 'Uw antwoorden wijzen op tekenen van een eetstoornis: dit geneesmiddel kan niet online worden voortgezet. Bespreek dit met uw arts.', pt: 'As suas respostas sugerem sinais de uma perturbação alimentar: este medicamento não pode ser continuado online. Fale com o seu médico.',
  },
  BMI_BELOW_18_5_AT_RENEWAL: {
    en: 'Your weight is now below the healthy range (BMI under 18.5): this medicine cannot be continued. Please talk to your doctor.', de: 'Ihr Gewicht liegt jetzt unter dem gesunden Bereich (BMI unter 18,5): Dieses Arzneimittel kann nicht fortgesetzt werden. Bitte sprechen Sie mit Ihrem Arzt.', es: 'Su peso está ahora por debajo del rango saludable (IMC inferior a 18,5): este medicamento no puede continuarse. Hable con su médico.',
    fr: 'Votre poids est désormais sous la zone saine (IMC inférieur à 18,5) : ce médicament ne peut pas être poursuivi. Parlez-en à votre médecin.', it: 'Il suo peso è ora sotto l’intervallo sano (IMC inferiore a 18,5): questo farmaco non può essere proseguito. Ne parli con il suo medico.', nl: 'Uw gewicht ligt nu onder het gezonde bereik (BMI onder 18,5): dit geneesmiddel kan niet worden voortgezet. Bespreek dit met uw arts.', pt: 'O seu peso está agora abaixo do intervalo saudável (IMC inferior a 18,5): este medicamento não pode ser continuado. Fale com o seu médico.',
  },
  ULIPRISTAL_BREASTFEEDING: {
    en: 'After ulipristal, breastfeeding is not recommended for one week (express and discard the milk); levonorgestrel does not need a break.', de: 'Nach Ulipristal wird eine Woche lang vom Stillen abgeraten (Milch abpumpen und verwerfen); Levonorgestrel braucht keine Pause.', es: 'Tras el ulipristal no se recomienda dar el pecho durante una semana (extraiga y deseche la leche); el levonorgestrel no requiere pausa.',
    fr: 'Après l’ulipristal, l’allaitement est déconseillé pendant une semaine (tirer et jeter le lait) ; le lévonorgestrel ne nécessite pas de pause.', it: 'Dopo ulipristal l’allattamento è sconsigliato per una settimana (tirare e gettare il latte); il levonorgestrel non richiede pause.', nl: 'Na ulipristal wordt borstvoeding een week afgeraden (kolven en weggooien); levonorgestrel vraagt geen pauze.', pt: 'Após o ulipristal não se recomenda amamentar durante uma semana (extrair e deitar fora o leite); o levonorgestrel não exige pausa.',
  },
};

/** Refusal before any health answer is stored: residents of a country where online prescribing is not allowed. */
export const NOT_AVAILABLE_IN_COUNTRY: T = {
  en: 'For legal reasons this service cannot prescribe medicines online to residents of your country. Please see a doctor or pharmacy where you live.', de: 'Aus rechtlichen Gründen kann dieser Dienst Einwohnern Ihres Landes keine Arzneimittel online verschreiben. Bitte wenden Sie sich an eine Praxis oder Apotheke vor Ort.', es: 'Por motivos legales, este servicio no puede recetar medicamentos en línea a residentes de su país. Acuda a un médico o farmacia de su lugar de residencia.',
  fr: 'Pour des raisons légales, ce service ne peut pas prescrire de médicaments en ligne aux résidents de votre pays. Veuillez consulter un médecin ou une pharmacie près de chez vous.', it: 'Per motivi legali questo servizio non può prescrivere farmaci online ai residenti del suo paese. Si rivolga a un medico o a una farmacia dove vive.', nl: 'Om juridische redenen kan deze dienst geen geneesmiddelen online voorschrijven aan inwoners van uw land. Ga naar een arts of apotheek bij u in de buurt.', pt: 'Por razões legais, este serviço não pode prescrever medicamentos online a residentes do seu país. Consulte um médico ou farmácia onde vive.',
};

export const HELD_FOR_DRAFT_RED_FLAG: T = {
  en: 'An answer you gave earlier while filling in this questionnaire may need medical attention. A doctor will review your questionnaire before any treatment is offered.',
  de: 'Eine Antwort, die Sie beim Ausfüllen dieses Fragebogens gegeben hatten, kann ärztliche Hilfe erfordern. Eine Ärztin oder ein Arzt prüft Ihren Fragebogen, bevor eine Behandlung angeboten wird.',
  es: 'Una respuesta que dio antes al rellenar este cuestionario puede requerir atención médica. Un médico revisará su cuestionario antes de ofrecer tratamiento.',
  fr: 'Une réponse donnée plus tôt dans ce questionnaire peut nécessiter une prise en charge médicale. Un médecin examinera votre questionnaire avant de proposer un traitement.',
  it: 'Una risposta data in precedenza in questo questionario può richiedere assistenza medica. Un medico esaminerà il questionario prima di proporre un trattamento.',
  nl: 'Een antwoord dat u eerder in deze vragenlijst gaf, kan medische aandacht vragen. Een arts beoordeelt uw vragenlijst voordat er een behandeling wordt aangeboden.',
  pt: 'Uma resposta que deu antes neste questionário pode exigir cuidados médicos. Um médico vai rever o seu questionário antes de oferecer tratamento.',
};

export const reasonText = (locale: Locale, rule: Rule) => (RULE_TEXT[rule.code] ?? KIND[rule.kind])[locale];
/** A stored reason's text in another language (the history shows it in the patient's current language). */
export const storedReasonText = (locale: Locale, code: string, kind: string | undefined): string =>
  (RULE_TEXT[code] ?? (kind && kind in KIND ? KIND[kind as Rule['kind']] : GENERAL_REASON))[locale];
export const alternativeText = (locale: Locale, code: string) => (ALTERNATIVES[code] ?? GENERAL_PRACTITIONER)[locale];
export const ALTERNATIVE_CODES = Object.keys(ALTERNATIVES);

export const ELIGIBLE: T = {
  en: 'You can choose a treatment and go on to checkout. A doctor reviews your answers before anything is prescribed.',
  de: 'Sie können eine Behandlung wählen und zur Kasse gehen. Eine Ärztin oder ein Arzt prüft Ihre Antworten vor jeder Verschreibung.',
  es: 'Puede elegir un tratamiento y pasar al pago. Un médico revisa sus respuestas antes de recetar nada.',
  fr: 'Vous pouvez choisir un traitement et passer au paiement. Un médecin examine vos réponses avant toute prescription.',
  it: 'Può scegliere un trattamento e procedere al pagamento. Un medico esamina le sue risposte prima di qualsiasi prescrizione.',
  nl: 'U kunt een behandeling kiezen en afrekenen. Een arts beoordeelt uw antwoorden voordat er iets wordt voorgeschreven.',
  pt: 'Pode escolher um tratamento e avançar para o pagamento. Um médico revê as suas respostas antes de qualquer prescrição.',
};

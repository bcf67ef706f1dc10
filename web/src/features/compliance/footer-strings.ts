// The footer's strings in the seven locales (in the first page's script: the footer is on every
// page). Public text: test/public-advertising.test.ts checks it names no medicine.
import type { Locale } from '../../i18n';

const en = {
  label: 'Legal and service information',
  cancel: 'Cancel contracts here',
  doctors: 'Our doctors',
  accessibility: 'Accessibility',
  imprint: 'Imprint',
  deskProfile: 'My public listing',
  logoText: 'Click to verify if this website is operating legally',
  logoLabel: 'the entry of {pharmacy} in the national register of online sellers of medicines (opens the register)',
};
export type FooterKey = keyof typeof en;

export const PUBLIC_STRINGS: Record<Locale, Record<FooterKey, string>> = {
  en,
  de: {
    label: 'Rechtliches und Service',
    cancel: 'Verträge hier kündigen',
    doctors: 'Unsere Ärztinnen und Ärzte',
    accessibility: 'Barrierefreiheit',
    imprint: 'Impressum',
    deskProfile: 'Mein öffentlicher Eintrag',
    logoText: 'Klicken Sie hier, um zu überprüfen, ob diese Website legal ist',
    logoLabel: 'der Eintrag von {pharmacy} im nationalen Versandhandelsregister für Arzneimittel (öffnet das Register)',
  },
  es: {
    label: 'Información legal y de servicio',
    cancel: 'Cancelar contratos aquí',
    doctors: 'Nuestros médicos',
    accessibility: 'Accesibilidad',
    imprint: 'Aviso legal',
    deskProfile: 'Mi perfil público',
    logoText: 'Haga clic para verificar si este sitio web opera legalmente',
    logoLabel: 'la inscripción de {pharmacy} en el registro nacional de venta a distancia de medicamentos (abre el registro)',
  },
  fr: {
    label: 'Informations légales et service',
    cancel: 'Résilier un contrat ici',
    doctors: 'Nos médecins',
    accessibility: 'Accessibilité',
    imprint: 'Mentions légales',
    deskProfile: 'Ma fiche publique',
    logoText: 'Cliquez pour vérifier si ce site web opère légalement',
    logoLabel: 'l’inscription de {pharmacy} au registre national de la vente de médicaments en ligne (ouvre le registre)',
  },
  it: {
    label: 'Informazioni legali e di servizio',
    cancel: 'Disdire i contratti qui',
    doctors: 'I nostri medici',
    accessibility: 'Accessibilità',
    imprint: 'Note legali',
    deskProfile: 'Il mio profilo pubblico',
    logoText: 'Cliccare per verificare se questo sito web opera legalmente',
    logoLabel: 'l’iscrizione di {pharmacy} nel registro nazionale della vendita online di medicinali (apre il registro)',
  },
  nl: {
    label: 'Juridische en service-informatie',
    cancel: 'Contracten hier opzeggen',
    doctors: 'Onze artsen',
    accessibility: 'Toegankelijkheid',
    imprint: 'Colofon',
    deskProfile: 'Mijn openbare vermelding',
    logoText: 'Klik om na te gaan of deze website legaal werkzaam is',
    logoLabel: 'de inschrijving van {pharmacy} in het nationale register van online verkopers van geneesmiddelen (opent het register)',
  },
  pt: {
    label: 'Informação legal e de serviço',
    cancel: 'Cancelar contratos aqui',
    doctors: 'Os nossos médicos',
    accessibility: 'Acessibilidade',
    imprint: 'Informação legal',
    deskProfile: 'O meu registo público',
    logoText: 'Clique para verificar se este sítio web opera legalmente',
    logoLabel: 'o registo de {pharmacy} no registo nacional de venda de medicamentos à distância (abre o registo)',
  },
};

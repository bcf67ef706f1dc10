// The body that registers doctors in each country the service's doctors may be registered in, and
// where the public checks a registration: the "our doctors" page links each doctor to it. Sources:
// each regulator's own site (the register search named here); a country without an entry shows
// the registration number without a link (docs/compliance.md).
export interface Regulator {
  name: string;
  register_url: string;
}

export const REGULATORS: Readonly<Record<string, Regulator>> = {
  // Germany: the state chambers (Landesärztekammern) keep the register; the federal chamber links them.
  DEU: { name: 'Landesärztekammer (Bundesärztekammer: Arztsuche)', register_url: 'https://www.bundesaerztekammer.de/patienten/arztsuche' },
  AUT: { name: 'Österreichische Ärztekammer (Ärzteliste)', register_url: 'https://www.aerztekammer.at/arztsuche' },
  GBR: { name: 'General Medical Council (the medical register)', register_url: 'https://www.gmc-uk.org/registrants' },
  IRL: { name: 'Medical Council (check the register)', register_url: 'https://www.medicalcouncil.ie/public-information/check-the-register/' },
  NLD: { name: 'BIG-register', register_url: 'https://www.bigregister.nl/' },
  FRA: { name: 'Conseil national de l’Ordre des médecins (annuaire)', register_url: 'https://www.conseil-national.medecin.fr/annuaire' },
  BEL: { name: 'Ordre des médecins / Orde der artsen', register_url: 'https://www.ordomedic.be/' },
  ESP: { name: 'Consejo General de Colegios Oficiales de Médicos (registro de colegiados)', register_url: 'https://www.cgcom.es/' },
  ITA: { name: 'FNOMCeO (ricerca anagrafica dei medici)', register_url: 'https://portale.fnomceo.it/cerca-prof/' },
  PRT: { name: 'Ordem dos Médicos', register_url: 'https://ordemdosmedicos.pt/' },
  NOR: { name: 'Helsedirektoratet (Helsepersonellregisteret)', register_url: 'https://www.helsedirektoratet.no/' },
};

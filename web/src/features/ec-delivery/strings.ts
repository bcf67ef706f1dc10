// The delivery notice's own strings, in the seven locales.
import type { Locale } from '../../i18n';

export interface DeliveryStrings {
  inTime: (arrival: string, deadline: string) => string;
  late: (arrival: string, deadline: string) => string;
  advice: string;
}

export const DELIVERY_STRINGS: Record<Locale, DeliveryStrings> = {
  en: {
    inTime: (a, d) => `Delivered, it is expected by ${a}, before the pill’s time limit (${d}). Take it as soon as it arrives.`,
    late: (a, d) => `Delivery cannot reach you in time: it would arrive by ${a}, too close to or after the pill’s time limit (${d}).`,
    advice: 'Get emergency contraception from a pharmacy near you now: it is sold without a prescription in most EU countries. Or choose collection at a partner pharmacy below. A copper IUD fitted by a doctor is the most effective option.',
  },
  de: {
    inTime: (a, d) => `Per Versand kommt sie voraussichtlich bis ${a}, vor Ablauf der Frist der Pille (${d}). Nehmen Sie sie sofort nach Erhalt ein.`,
    late: (a, d) => `Der Versand kommt nicht rechtzeitig: Ankunft bis ${a}, zu knapp vor oder nach Ablauf der Frist der Pille (${d}).`,
    advice: 'Holen Sie die Notfallverhütung jetzt in einer Apotheke in Ihrer Nähe: In den meisten EU-Ländern ist sie ohne Rezept erhältlich. Oder wählen Sie unten die Abholung in einer Partnerapotheke. Eine von einer Ärztin oder einem Arzt eingesetzte Kupferspirale wirkt am sichersten.',
  },
  fr: {
    inTime: (a, d) => `Livrée, elle devrait arriver d’ici ${a}, avant la limite de la pilule (${d}). Prenez-la dès réception.`,
    late: (a, d) => `La livraison ne peut pas arriver à temps : elle arriverait d’ici ${a}, trop près ou après la limite de la pilule (${d}).`,
    advice: 'Procurez-vous la contraception d’urgence maintenant dans une pharmacie proche : elle est vendue sans ordonnance dans la plupart des pays de l’UE. Ou choisissez ci-dessous le retrait dans une pharmacie partenaire. Le DIU au cuivre posé par un médecin est la méthode la plus efficace.',
  },
  es: {
    inTime: (a, d) => `Con envío, se espera antes de ${a}, dentro del plazo de la píldora (${d}). Tómela en cuanto llegue.`,
    late: (a, d) => `El envío no puede llegar a tiempo: llegaría antes de ${a}, demasiado cerca o después del plazo de la píldora (${d}).`,
    advice: 'Consiga ahora la anticoncepción de urgencia en una farmacia cercana: en la mayoría de los países de la UE se vende sin receta. O elija abajo la recogida en una farmacia asociada. El DIU de cobre colocado por un médico es la opción más eficaz.',
  },
  it: {
    inTime: (a, d) => `Con la spedizione arriva entro ${a}, prima del limite della pillola (${d}). La prenda appena arriva.`,
    late: (a, d) => `La spedizione non può arrivare in tempo: arriverebbe entro ${a}, troppo vicino o dopo il limite della pillola (${d}).`,
    advice: 'Acquisti ora la contraccezione d’emergenza in una farmacia vicina: nella maggior parte dei paesi UE è venduta senza ricetta. Oppure scelga qui sotto il ritiro in una farmacia partner. La spirale al rame inserita da un medico è l’opzione più efficace.',
  },
  nl: {
    inTime: (a, d) => `Bij verzending wordt die uiterlijk ${a} verwacht, vóór de termijn van de pil (${d}). Neem hem zodra hij er is.`,
    late: (a, d) => `Verzending komt niet op tijd: aankomst uiterlijk ${a}, te dicht bij of na de termijn van de pil (${d}).`,
    advice: 'Haal de noodanticonceptie nu bij een apotheek in de buurt: in de meeste EU-landen is die zonder recept te koop. Of kies hieronder ophalen bij een partnerapotheek. Een koperspiraal, geplaatst door een arts, is het meest betrouwbaar.',
  },
  pt: {
    inTime: (a, d) => `Com envio, deve chegar até ${a}, antes do limite da pílula (${d}). Tome-a assim que chegar.`,
    late: (a, d) => `O envio não chega a tempo: chegaria até ${a}, demasiado perto ou depois do limite da pílula (${d}).`,
    advice: 'Obtenha já a contraceção de emergência numa farmácia perto de si: na maioria dos países da UE é vendida sem receita. Ou escolha abaixo o levantamento numa farmácia parceira. O DIU de cobre colocado por um médico é a opção mais eficaz.',
  },
};

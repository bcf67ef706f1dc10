// The red-flag detector's symptom lexicon (docs/red-flags.md, "The symptom lexicon"): for each class,
// the signs its source lists (NHS "when to call 999", BE-FAST, NICE NG51/NG240, the C-SSRS, the EMA
// package leaflets of the catalogue's medicines, ...), each sign spelled in the 7 locales as patients
// write it (no accents, typos the normaliser repairs, SMS words), and the combinations of signs that
// make the class. A class is heard when every sign of one combination is in the text (in any
// language: patients mix them) and none of those signs is negated; the match is then read like a
// rule's (history, question, benign context) at its first sign. The lexicon generalises where the
// phrase rules cannot: it does not need the words in a given order, only the signs together.
//
// Texts are normalised (src/lib/emergency.ts normaliseText): lower case, accents folded, apostrophes
// and punctuation one space, English contractions joined ("cant", "dont").

/** A sign: alternatives of regular-expression source, matched on word boundaries. */
const sign = (...alternatives: string[]) => alternatives.join('|');

// ---------------------------------------------------------------- shared signs
const SUDDEN = sign(
  String.raw`sudden\w*|all of a sudden|out of nowhere|out of the blue|came on (?:fast|quickly)|just now`,
  String.raw`plotzlich|ploetzlich|auf einmal|schlagartig|mit einem mal|aus dem nichts`,
  String.raw`de repente|de golpe|repentin\w*|subit[oa]|de un momento a otro`,
  String.raw`subit\w*|soudain\w*|brutal\w*|d un coup|tout a coup|tout d un coup`,
  String.raw`improvvis\w*|all improvviso|di colpo|da un momento all altro|di botto`,
  String.raw`plotseling|ineens|opeens|acuut|in een keer`,
  String.raw`de repente|subitamente|de subito|do nada`,
);
const FEVER = sign(
  String.raw`fever\w*|high temp\w*|temperature of|temp (?:of )?(?:38|39|40|41)|burning up|3[89] \d|40 \d|3[89] ?c|39|40 degrees`,
  String.raw`fieber\w*|glu(?:h|e)\w*|hohes fieber|fiebrig`,
  String.raw`fiebre|febril|calentura alta|ardiendo`,
  String.raw`fievre|fievreu\w*|brulant\w*`,
  String.raw`febbre|febbricit\w*|bollente`,
  String.raw`koorts\w*|gloei\w*`,
  String.raw`febre|a escaldar`,
);
const RIGORS = sign(
  String.raw`shiver\w*|rigors?|chills|shaking (?:uncontrollabl\w*|all over)|uncontrollable shaking`,
  String.raw`schuttelfrost|schuettelfrost|frosteln|froesteln`,
  String.raw`escalofrios?|tiriton\w*|tiritando`,
  String.raw`frissons?|grelott\w*`,
  String.raw`brividi|brivido`,
  String.raw`rillingen|rillerig|koude rillingen|klappertand\w*`,
  String.raw`calafrios?|arrepios?`,
);
const CONFUSED = sign(
  String.raw`confus\w*|not making sense|making no sense|talking nonsense|gibberish|disorient\w*|drowsy|very sleepy|hard to wake|not himself|not herself|out of it`,
  String.raw`verwirrt\w*|redet wirr|wirres zeug|benommen|desorientiert|schlafrig|schlaefrig|kaum ansprechbar`,
  String.raw`confundid[oa]|confus[oa]|desorientad[oa]|no dice cosas con sentido|no razona|adormilad[oa]|somnolient[oa]`,
  String.raw`dit n importe quoi|incoheren\w*|desoriente\w*|somnolent\w*|dans le coltar`,
  String.raw`non ragiona|confus[oa]|disorientat[oa]|sonnolent[oa]|intontit[oa]`,
  String.raw`verward|wartaal|suf|sufferig|gedesorienteerd|slaperig`,
  String.raw`confus[oa]|nao diz coisa com coisa|desorientad[oa]|sonolent[oa]`,
);
const VOMITING = sign(
  String.raw`vomit\w*|throwing up|throw up|threw up|being sick|keep being sick|puk\w*|cant keep (?:anything|water|fluids|food) down`,
  String.raw`erbrech\w*|erbreche|kotz\w*|ubergeb\w*|uebergeb\w*|spucke|spuck\w*`,
  String.raw`vomit\w*|devolv\w*|arcadas`,
  String.raw`vomi\w*|degueul\w*`,
  String.raw`vomit\w*|rimett\w*|vomito`,
  String.raw`overgeven|overgeef|geef over|braak\w*|spug\w*|kots\w*`,
  String.raw`vomit\w*|a vomitar|vomito`,
);
const DIARRHOEA = sign(String.raw`diarr\w*|the runs|runny poo|durchfall|diarrea|diarrhee|diarree|diarreia|cagarrinha`);
const SWEATING = sign(
  String.raw`sweat\w*|clammy|drenched`,
  String.raw`schwitz\w*|schweiss\w*|nassgeschwitzt`,
  String.raw`sud\w*|empapad[oa]`,
  String.raw`transpir\w*|sue|sueur\w*|en nage|moite`,
  String.raw`sud\w*|sudato|sudore`,
  String.raw`zweet\w*|zweten|klam`,
  String.raw`suar|suad[oa]|suor\w*|transpir\w*`,
);
const FAST_HEART = sign(
  String.raw`heart (?:is )?(?:racing|pounding|going crazy|beating fast)|racing heart|palpitation\w*|tachy\w*|pulse (?:is )?(?:racing|very fast)`,
  String.raw`herzrasen|herz rast|herzklopfen`,
  String.raw`taquicardia|el corazon a mil|palpitaciones`,
  String.raw`coeur (?:qui )?(?:s emballe|bat (?:tres )?(?:fort|vite))|tachycard\w*|palpitations`,
  String.raw`cuore a mille|batticuore|tachicardia|palpitazion\w*`,
  String.raw`hartjagen|hartkloppingen|hart gaat tekeer|hart bonkt`,
  String.raw`coracao (?:acelerado|aos saltos|a mil)|taquicardia|palpitacoes`,
);
const TREMOR = sign(
  String.raw`trembl\w*|tremor\w*|shak(?:y|ing|es)|jitter\w*|twitch\w*|jerk\w*|clonus|spasm\w*`,
  String.raw`zitter\w*|zuck\w*|zuckungen|muskelzuck\w*|krampf\w*`,
  String.raw`tembl\w*|tiembl\w*|sacudid\w*|espasm\w*|temblor\w*|tirones`,
  String.raw`trembl\w*|tremblement\w*|secousse\w*|spasme\w*|tressaut\w*|sursaut\w*`,
  String.raw`trem\w*|scatti|scatta\w*|scosse|spasm\w*|tremori`,
  String.raw`tril\w*|schok\w*|spiertrek\w*|trekkingen`,
  String.raw`trem\w*|tremor\w*|espasm\w*|a tremer|treme`,
);
const AGITATED = sign(
  String.raw`agitat\w*|restless|jittery|wired|cant sit still|very anxious`,
  String.raw`unruhig|agitiert|aufgedreht|hibbelig`,
  String.raw`agitad[oa]|inquiet[oa]|nervios[oa] perdid[oa]`,
  String.raw`agite\w*|nerveu\w* comme jamais`,
  String.raw`agitat[oa]|irrequiet[oa]`,
  String.raw`onrustig|opgefokt|geagiteerd`,
  String.raw`agitad[oa]|inquiet[oa]`,
);
const HOT = sign(String.raw`really hot|very hot|so hot|burning hot|sehr heiss|gluhe|glue|glueh\w*|mucho calor|ardiendo|tres chaud|brulant\w*|caldissim[oa]|bollente|heel heet|gloeiend|gloeit|muito calor|a escaldar`, FEVER);
const SEROTONERGIC = sign(String.raw`priligy|dapoxetin\w*|ssri|sertralin\w*|fluoxetin\w*|citalopram|escitalopram|paroxetin\w*|antidepress\w*|antidepresiv\w*|antidepresseur\w*|antidepressiv\w*|antidepressivum|tramadol|triptan\w*|mdma|ecstasy`);
const RIGHT_UPPER = sign(
  String.raw`right (?:upper|side)\w*|upper right|under (?:my |the )?right ribs?|right ribs|right under (?:my |the )?ribs|right side under`,
  String.raw`rechts? (?:oben|unter dem rippenbogen|unter den rippen)|rechten oberbauch|rechter oberbauch|rechts oberbauch|unter dem rechten rippenbogen|rippenbogen`,
  String.raw`(?:lado|costado) derecho|arriba a la derecha|bajo las costillas (?:derechas|a la derecha)|costillas derechas|debajo de las costillas`,
  String.raw`(?:en )?haut a droite|sous les cotes(?: a droite)?|cote droit|hypocondre droit`,
  String.raw`(?:in )?alto a destra|sotto le costole|fianco destro|ipocondrio destro`,
  String.raw`rechts ?boven|rechtsboven|rechts onder (?:mijn|de) ribben|onder (?:mijn|de) ribben`,
  String.raw`em cima (?:a|do lado) direit[oa]|debaixo das costelas|lado direito|hipocondrio direito`,
);
const YELLOW = sign(
  String.raw`yellow\w* (?:skin|eyes)|(?:skin|eyes) (?:look |looks |are |is |have |has )?(?:gone |turned |going |turning )?yellow\w*|jaundice\w*`,
  String.raw`gelbe? (?:haut|augen)|(?:haut|augen) (?:ist |sind |wird |werden )?gelb\w*|gelbsucht`,
  String.raw`ojos amarill\w*|piel amarill\w*|(?:ojos|piel) (?:esta |estan |se (?:me )?(?:ha |han )?puesto )?amarill\w*|ictericia`,
  String.raw`yeux jaunes?|peau jaune|jaunisse|ictere|(?:peau|yeux) (?:qui )?jauni\w*|jauni\w*`,
  String.raw`occhi gialli\w*|pelle gialla|ittero|occhi giallastri|ingiallit\w*`,
  String.raw`gele (?:ogen|huid)|geelachtig\w*|geelzucht|(?:huid|ogen) (?:wordt |worden |is |zijn )?geel`,
  String.raw`olhos amarel\w*|pele amarel\w*|ictericia|(?:olhos|pele) (?:esta |estao |ficou |ficaram )?amarel\w*`,
);
const GLP1 = sign(String.raw`ozempic|wegovy|mounjaro|zepbound|saxenda|victoza|semaglutid\w*|tirzepatid\w*|liraglutid\w*|glp ?1|the (?:jab|shot|injection|pen)|spritze|inyeccion|pinchazo|injection|piqure|iniezione|puntura|prik|injectie|injecao|pica`);
const PILL_CONTRACEPTIVE = sign(String.raw`the pill|on the pill|contracepti\w*|yasmin|microgynon|nuvaring|ring|pille|verhutung\w*|anticoncepti\w*|pildora|pilule|contracepti\w*|pillola|anticoncezional\w*|de pil|aan de pil|slik de pil|pilula|anticoncecion\w*|anticoncepcional`);
const BREATHLESS = sign(
  String.raw`breathless\w*|short of breath|shortness of breath|out of breath|cant (?:catch my )?breath\w*|struggling to breathe|gasping|cant get (?:enough )?air|cant breathe`,
  String.raw`atemnot|kurzatmig|keine luft|bekomme? kaum luft|kriege? keine luft|luftnot|ringt nach luft`,
  String.raw`falta (?:de )?(?:aire|aliento)|me ahogo|se ahoga|no puedo respirar|no me entra el aire|no le entra el aire|sin aliento`,
  String.raw`essouffl\w*|je n arrive (?:plus )?pas a respirer|du mal a respirer|suffoqu\w*|manque d air|souffle court`,
  String.raw`affanno|fiato corto|senza fiato|manca l aria|non riesco a respirare|fa fatica a respirare`,
  String.raw`benauwd\w*|kortademig\w*|geen lucht|krijg geen lucht|hapt naar adem|naar adem happen|buiten adem`,
  String.raw`falta de ar|sem ar|nao consigo respirar|sufoc\w*|sem folego`,
);
const PAIN_ON_BREATHING = sign(
  String.raw`(?:pain|hurts|stabbing|sharp)\w* (?:when|if) (?:i )?(?:breathe|breathing|inhal\w*)|(?:breathing|breathe) in hurts`,
  String.raw`(?:schmerz\w*|stech\w*|sticht|tut weh) (?:beim|bei) (?:einatmen|atmen|tief atmen)`,
  String.raw`(?:dolor|pinchazo|punzada|me duele) al (?:respirar|inspirar)`,
  String.raw`(?:douleur|mal|point) (?:quand|lorsque) (?:j )?(?:inspire|respire)`,
  String.raw`(?:dolore|fitta|male) (?:quando|se) (?:inspiro|respiro)`,
  String.raw`(?:pijn|steken|stekende pijn) bij (?:het )?(?:inademen|ademen)`,
  String.raw`(?:dor|pontada) (?:ao|quando) (?:respirar|inspirar|respiro)`,
);
const ONE_LEG = sign(
  String.raw`(?:calf|leg) (?:is |looks |very |really )?(?:swollen|swelling|red|hot|warm|tender|painful|bigger|fatter)|swollen (?:calf|leg)|one leg (?:much |way )?(?:bigger|fatter|swollen)|one calf`,
  String.raw`wade (?:ist |links |rechts )?(?:dick|geschwollen|warm|rot)|dicke wade|geschwollene wade|ein bein (?:viel )?dicker|bein (?:ist )?(?:dick|geschwollen)`,
  String.raw`pantorrilla (?:\w+ )?(?:hinchada|roja|caliente)|gemelo hinchado|una pierna (?:mucho )?(?:mas )?(?:gorda|hinchada)|pierna hinchada`,
  String.raw`mollet (?:\w+ )?(?:gonfle|rouge|chaud)|une jambe (?:bien |beaucoup )?(?:plus )?(?:grosse|gonflee)|jambe gonflee`,
  String.raw`polpaccio (?:\w+ )?(?:gonfio|rosso|caldo)|una gamba (?:molto )?(?:piu )?gonfia|gamba gonfia`,
  String.raw`kuit (?:is )?(?:dik|rood|warm|gezwollen)|linkerkuit|rechterkuit|een been (?:veel )?dikker|been (?:is )?(?:dik|gezwollen)`,
  String.raw`barriga da perna (?:\w+ )?(?:inchada|vermelha|quente)|gemeo inchado|uma perna (?:muito )?(?:mais )?inchada|perna inchada`,
);
const NO_URINE = sign(
  String.raw`peeing (?:very )?little|very little (?:pee|urine|wee)|wenig urin|pinkle (?:sehr )?wenig|orino muy poco|urine tres peu|urino pochissimo|plas heel weinig|urino muito pouco|(?:no|havent|not|hardly|barely|cant) (?:wee\w*|pee\w*|urin\w*)|no (?:wee|pee|urine) since|havent (?:peed|been to the toilet)|not peed`,
  String.raw`kein urin|kaum urin|nicht (?:mehr )?(?:gepinkelt|uriniert|pinkeln)|pinkle kaum`,
  String.raw`no (?:orino|he orinado|hago pis|hecho pis)|casi no orino|apenas orino`,
  String.raw`(?:pas|plus|presque pas) (?:uriné|urine|de pipi|fait pipi)|n urine (?:plus|presque pas)`,
  String.raw`(?:niente|non faccio|quasi non faccio) pipi|non urino|quasi non urino`,
  String.raw`niet (?:meer )?geplast|plas (?:bijna )?niet|plas bijna niks`,
  String.raw`nao (?:urino|faco xixi|fiz xixi)|quase nao urino`,
);
const CANT_KEEP_DOWN = sign(
  String.raw`(?:cant|can not) drink without (?:throwing up|vomiting|being sick)|nichts trinken ohne (?:zu )?(?:erbrechen|kotzen|spucken)|no puedo beber sin vomitar|je ne peux rien boire sans vomir|non riesco a bere senza vomitare|kan niks drinken zonder over te geven|nao consigo beber sem vomitar|cant keep (?:anything|water|fluids|liquids|food|drinks?) down|throwing up everything|everything comes (?:back )?up|cant hold (?:anything|water) down|nonstop|non stop|all day|for (?:2|3|two|three) days`,
  String.raw`behalte? (?:nichts|kein wasser)|kein wasser (?:\w+ ){0,3}behalten|kann (?:nichts|kein wasser) (?:bei mir )?behalten|erbreche alles|ohne ende|ununterbrochen`,
  String.raw`no retengo|no (?:le )?retiene|lo vomito todo|sin parar`,
  String.raw`je ne garde rien|ne garde (?:pas|rien)|vomis tout|non stop|sans arret`,
  String.raw`non (?:trattengo|trattiene|tengo) (?:niente|nulla|liquidi|l acqua)|vomito tutto|senza sosta`,
  String.raw`houd (?:niks|niets|geen (?:vocht|water)) binnen|geen (?:water|vocht) binnen|kan (?:niks|niets) binnenhouden|houdt (?:geen|niks) (?:water )?binnen|alles eruit|non stop`,
  String.raw`nao (?:seguro|segura|consigo segurar) (?:nada|agua|liquidos)|vomito tudo|sem parar`,
);
const DIZZY_WEAK = sign(
  String.raw`dizz\w*|lightheaded|light headed|faint\w*|very weak|so weak|weak and`,
  String.raw`schwindel\w*|schwindlig|schwummrig|schwach|ganz schwach|kreislauf`,
  String.raw`mare\w*|debil|muy debil`,
  String.raw`etourdi\w*|vertige\w*|faible|tres faible`,
  String.raw`capogir\w*|gira la testa|debole|debolissim[oa]`,
  String.raw`duizel\w*|zwak|heel zwak|slap`,
  String.raw`tont\w*|fraco|fraca|muito frac[oa]`,
);
const DRY = sign(String.raw`dark (?:pee|urine|wee)|donkere (?:plas|urine)|dunkler urin|urin (?:ist )?dunkel|orina oscura|urines? foncees?|urine scure|urina escura|(?:very|so|really) thirsty|sehr durstig|mucha sed|tres soif|tanta sete|veel dorst|muita sede|(?:pee\w*|urine|wee) (?:\w+ ){0,3}dark|dry mouth|mouth (?:is )?(?:so |really )?dry|mouth dry|dark (?:pee|urine|wee)|mund (?:total |ganz )?trocken|boca (?:muy )?seca|bouche (?:tres )?seche|bocca secc\w*|mond (?:kurk)?droog|kurkdroog|boca (?:muito )?seca`);

// ---------------------------------------------------------------- classes
export interface LexiconClass {
  /** The signs of the class, by name. */
  signs: Record<string, string>;
  /** Combinations: the class is heard when every sign of one of them is in the text. */
  combos: string[][];
}

export const LEXICON: Record<string, LexiconClass> = {
  // BE-FAST (Stroke Association, NHS, ESO) and posterior-circulation signs.
  stroke: {
    signs: {
      face: sign(
        String.raw`(?:face|mouth) went (?:funny|weird|droopy|crooked)|half (?:her|his|my) face|media cara|scheef gezicht|scheve? gezicht|(?:cara|faccia|visage) (?:\w+ )?(?:caida|cadente|qui tombe|descaida)|(?:face|mouth|smile|lip) (?:\w+ ){0,3}(?:droop\w*|lopsided|crooked|sagg\w*|dropp\w*|fallen|hanging)|droop\w* (?:face|mouth|on one side)|lopsided (?:smile|face)`,
        String.raw`(?:mund|mundwinkel|gesicht|gesichtshalfte) (?:\w+ ){0,3}(?:hang\w*|schief)|hangende\w* (?:mundwinkel|gesicht)|schiefer mund`,
        String.raw`(?:boca|cara) (?:\w+ ){0,2}(?:torcida|caida|desviada|de lado)|se le (?:ha )?(?:torcido|caido) la (?:boca|cara)`,
        String.raw`bouche (?:\w+ ){0,2}(?:de travers|tordue|qui tombe|deviee)|visage (?:qui tombe|paralyse|de travers)`,
        String.raw`(?:bocca|faccia) (?:\w+ ){0,2}(?:storta|cadente|paralizzata)`,
        String.raw`(?:mond|gezicht|mondhoek) (?:\w+ ){0,3}(?:hangt|scheef)|scheve mond|hangende mondhoek`,
        String.raw`(?:boca|cara) (?:\w+ ){0,2}(?:torta|descaida|ao lado)`,
      ),
      limb: sign(
        String.raw`cant hold (?:her|his|my|a) \w+|kann (?:\w+ ){0,2}nicht (?:mehr )?halten|no puede sostener|ne peut plus tenir|non riesce a tenere|niet (?:meer )?vasthouden|nao consegue segurar`,
        String.raw`(?:arm|leg|hand|side) (?:\w+ ){0,3}(?:weak|numb|dead|heavy|gave way|went numb|wont move|paralys\w*)|cant (?:lift|move|feel) (?:my|his|her) (?:\w+ )?(?:arm|leg|hand)`,
        String.raw`(?:arm|bein|hand|seite) (?:\w+ ){0,3}(?:taub|schwach|lahm|gelahmt|gelaehmt)|(?:arm|bein) nicht (?:mehr )?(?:heben|bewegen|spuren)`,
        String.raw`(?:brazo|pierna|mano|lado) (?:\w+ ){0,3}(?:dormid[oa]|debil|paralizad[oa])|no (?:siento|puedo mover|puedo levantar) el (?:brazo|pierna)`,
        String.raw`(?:bras|jambe|main|cote) (?:\w+ ){0,3}(?:engourdi\w*|faible|paralyse\w*|lourd\w*)|ne sens plus (?:mon|ma|son|sa) (?:bras|jambe|main)`,
        String.raw`(?:braccio|gamba|mano|lato) (?:\w+ ){0,3}(?:addormentat[oa]|debole|paralizzat[oa]|intorpidit[oa])|non (?:muovo|sento) piu (?:il|la) (?:braccio|gamba|mano)`,
        String.raw`(?:arm|been|hand|kant|linkerarm|rechterarm) (?:\w+ ){0,3}(?:doof|slap|verlamd|krachteloos|tintelt|niet optillen)|(?:arm|been) niet (?:meer )?(?:optillen|bewegen|voelen)`,
        String.raw`(?:braco|perna|mao|lado) (?:\w+ ){0,3}(?:dormente|frac[oa]|paralisad[oa])|nao consigo (?:levantar|mexer|sentir) (?:o|a) (?:braco|perna|mao)`,
      ),
      speech: sign(
        String.raw`slurr\w*|speech (?:is |was )?(?:\w+ )?(?:weird|strange|funny|slurred|garbled|off)|cant get (?:my|his|her) words out|talking (?:\w+ )?(?:funny|gibberish|weird|nonsense)|cant (?:speak|talk) (?:properly|right)|cant find (?:my|his|her) words|words (?:are )?jumbled`,
        String.raw`verwaschen\w*|lallt|spricht (?:\w+ ){0,2}(?:komisch|undeutlich|wirr|seltsam)|findet (?:keine|seine|ihre) worte|kann nicht (?:mehr )?(?:richtig )?sprechen|sprachstorung`,
        String.raw`(?:se le|se me) traba la lengua|habla (?:\w+ )?(?:raro|mal|arrastrad\w*|rara)|no (?:puede|puedo) hablar|no encuentra (?:las )?palabras`,
        String.raw`parle (?:\w+ )?(?:mal|bizarre|bizarrement)|ne trouve (?:plus )?(?:ses|mes) mots|bafouill\w*|n arrive (?:plus )?a parler`,
        String.raw`parl[ao] (?:\w+ )?strano|non riesce (?:piu )?a parlare|biascic\w*|impastat[oa]`,
        String.raw`praat (?:\w+ ){0,2}(?:raar|onduidelijk|vreemd|krom|wartaal)|dubbele tong|kan niet (?:meer )?praten|woorden niet vinden`,
        String.raw`fala (?:\w+ )?(?:enrolad[oa]|estranho|arrastad[oa]|mal)|nao (?:consegue|consigo) falar|lingua enrolada`,
      ),
      double: sign(String.raw`double vision|seeing double|see double|doppelbild\w*|doppelt sehen|sehe doppelt|vision doble|veo doble|vois double|vision double|vedo doppio|visione doppia|dubbel (?:zien|zicht)|zie dubbel|vejo a dobrar|visao dupla|vejo duplo`),
      vertigo: sign(String.raw`room (?:is )?spinning|vertigo|dizz\w*|schwindel\w*|drehschwindel|vertig\w*|mareo|da vueltas|vertige\w*|tete qui tourne|capogir\w*|gira tutto|draaiduizel\w*|duizel\w*|tontura\w*|tudo a andar a roda`),
      gait: sign(
        String.raw`cant walk (?:straight|properly)|cant stand (?:up)?|walking into things|los(?:ing|t) (?:my|his|her) balance|falling to one side`,
        String.raw`kann nicht (?:mehr )?(?:gerade )?(?:laufen|gehen|stehen)|gleichgewicht`,
        String.raw`no (?:puedo|puede) caminar (?:recto|bien)|no me tengo en pie|(?:pierde|perdi) el equilibrio`,
        String.raw`(?:ne )?tiens? pas debout|perd(?:s)? l equilibre|marche de travers`,
        String.raw`non sto in piedi|perd[eo] l equilibrio|non riesco a camminare`,
        String.raw`(?:kan|kon) niet (?:recht )?(?:lopen|staan)|evenwicht kwijt|loop scheef`,
        String.raw`nao consig[oa] andar (?:direito|a direito)|perd[eo] o equilibrio|nao me aguento de pe`,
      ),
      onesided: sign(String.raw`cant see (?:on|out of) one side|lost (?:half|one side of) (?:my |his |her )?vision|walking into things on one side`),
      headache: sign(String.raw`worst headache|thunderclap|schlimmsten? kopfschmerz\w*|vernichtungskopfschmerz|peor dolor de cabeza|pire mal de tete|peggior mal di testa|ergste hoofdpijn|pior dor de cabeca`),
      sudden: SUDDEN,
      vomit: VOMITING,
    },
    combos: [['face'], ['limb', 'sudden'], ['limb', 'speech'], ['speech', 'sudden'], ['speech', 'gait'], ['double', 'vertigo'], ['double', 'gait'], ['double', 'sudden'], ['vertigo', 'gait', 'vomit'], ['onesided'], ['headache', 'double'], ['headache', 'sudden']],
  },
  // E4 and the PDE5 leaflets 4: an erection lasting 4 hours or more.
  priapism: {
    signs: {
      erection: sign(String.raw`erect\w*|boner|still hard|hard on|dauerst(?:a|ae)nder|steif seit|immer noch steif|noch steif|empalmad[oa]|ereccion|erection|bande encore|erezione|ancora teso|erectie|nog steeds stijf|stijf (?:na|sinds)|erecao|ainda tes[oa]`),
      hours: sign(String.raw`(?:[4-9]|1\d|2\d|four|five|six|seven|eight|vier|funf|fuenf|sechs|cuatro|cinco|seis|quatre|cinq|six|quattro|cinque|sei|vier|vijf|zes|quatro|cinco|seis) ?(?:hours?|hrs?|h|stunden|std|horas?|heures?|ore|uur)\b|all night|die ganze nacht|toda la noche|toute la nuit|tutta la notte|de hele nacht|a noite toda`),
    },
    combos: [['erection', 'hours']],
  },
  // NICE NG51 high-risk criteria, UK Sepsis Trust.
  sepsis: {
    signs: {
      fever: sign(FEVER, RIGORS),
      infection: sign(String.raw`uti|infection|cystitis|bladder infection|blasenentzundung|blasenentzuendung|harnwegsinfekt\w*|infekt\w*|infeccion|cistitis|infection urinaire|cystite|infezione|cistite|blaasontsteking|infectie|infecao|infeccao`),
      confused: CONFUSED,
      mottled: sign(String.raw`mottled|blotchy|ashen|marmor\w*|fleckig\w*|moteada?|con manchas|piel manchada|marbre\w*|chiazz\w*|a chiazze|gevlekt\w*|vlekkerig\w*|manchad[oa]s?`),
      nourine: NO_URINE,
      veryill: sign(String.raw`never felt (?:this|so) ill|feel like (?:im )?dying|sterbenskrank|noch nie so krank|como nunca|mal como nunca|jamais (?:ete )?aussi malade|tres tres mal|malissimo come mai|mai stat[oa] cosi male|doodziek|pessimo como nunca`),
      fastbreath: sign(String.raw`breathing (?:really |very )?fast|atmet (?:sehr )?schnell|respira (?:muy )?rapido|respire (?:tres )?vite|respira (?:molto )?(?:veloce|velocemente)|ademt (?:heel )?snel|respira muito (?:rapido|depressa)`),
      heart: FAST_HEART,
    },
    combos: [['fever', 'confused'], ['fever', 'mottled'], ['fever', 'nourine'], ['fever', 'veryill'], ['fever', 'fastbreath'], ['infection', 'confused'], ['infection', 'mottled'], ['infection', 'fever', 'heart'], ['mottled', 'confused']],
  },
  // NICE NG240: fever, headache, stiff neck, photophobia, non-blanching rash.
  meningitis: {
    signs: {
      neck: sign(String.raw`stiff neck|neck (?:is )?(?:stiff|rigid)|cant (?:bend|move) (?:my|his|her) neck|steife\w* nacken|nacken (?:ist )?steif|nackensteif\w*|nuca rigida|rigidez de nuca|no (?:puedo|puede) doblar el cuello|cuello rigido|nuque (?:raide|bloquee)|raideur de (?:la )?nuque|collo (?:rigido|bloccato)|rigidita nucale|stijve nek|nek (?:is )?stijf|pescoco (?:rigido|preso)|nao consigo dobrar o pescoco|nuca rigida`),
      light: sign(String.raw`light hurts|hates? the light|(?:sensitive|sensitivity) to light|photophob\w*|lichtempfindlich\w*|vertragt kein licht|vertraegt kein licht|le molesta la luz|fotofobia|(?:supporte pas|ne supporte pas) la lumiere|la lumiere (?:lui |me )?fait mal|luce insopportabile|da fastidio la luce|kan niet tegen (?:het )?licht|licht doet pijn|a luz (?:lhe |me )?incomoda|nao aguenta a luz`),
      rash: sign(String.raw`(?:spots|rash) (?:\w+ ){0,4}(?:dont|doesnt|do not|does not) fade|glass test|under a glass|non blanching|purple spots|glastest|unter dem glas|(?:flecken|punkte) (?:\w+ ){0,4}(?:nicht weg|bleiben)|con el vaso|manchas moradas|sous le verre|taches (?:violettes|pourpres)|col bicchiere|macchie viola|onder een glas|niet wegdrukken|paarse vlek\w*|com o copo|manchas roxas`),
      fever: FEVER,
      headache: sign(String.raw`headache|head (?:is )?(?:killing|pounding)|kopfschmerz\w*|kopfweh|dolor de cabeza|mal de tete|mal di testa|hoofdpijn|dor de cabeca`),
      vomit: VOMITING,
      drowsy: CONFUSED,
    },
    combos: [['neck', 'fever'], ['neck', 'light'], ['neck', 'headache', 'vomit'], ['rash', 'fever'], ['rash', 'drowsy'], ['light', 'fever', 'headache'], ['neck', 'headache', 'fever']],
  },
  seizure: {
    signs: {
      eyes: sign(String.raw`eyes (?:rolled|rolling) (?:back|up)|verdreht die augen|augen verdreht|ojos en blanco|yeux revulses|occhi rovesciati|occhi all indietro|draait (?:met )?(?:zijn|haar) ogen|revira os olhos|olhos revirados`),
      jerking: sign(String.raw`jerk\w*|convuls\w*|fitting|zuck\w*|krampft|tiembla (?:todo|entero)|sacudidas|convulsion\w*|convulse\w*|scatti di tutto il corpo|scatti|schokt|schokken|a tremer (?:tod[oa])?|tremer todo`),
      foam: sign(String.raw`foam\w* at (?:the )?mouth|schaum vo[rm] (?:dem )?mund|espuma por la boca|bave|mousse|schiuma|schuim|espuma`),
      unresponsive: sign(String.raw`not responding|unresponsive|wont wake|reagiert nicht|wacht nicht auf|no responde|no despierta|ne repond pas|ne se reveille pas|non risponde|non si sveglia|reageert niet|wordt niet wakker|nao responde|nao acorda`),
      ongoing: sign(String.raw`(?:for|since|seit|desde|depuis|da|al|ha) (?:\d+|five|ten|funf|zehn|cinco|diez|cinq|dix|cinque|dieci|vijf|tien|dez) min\w*|on the floor|am boden|en el suelo|par terre|a terra|per terra|op de grond|no chao`),
    },
    combos: [['eyes', 'jerking'], ['jerking', 'unresponsive'], ['foam', 'jerking'], ['eyes', 'foam'], ['jerking', 'ongoing']],
  },
  // Resuscitation Council UK / EAACI anaphylaxis: skin or swelling with breathing, throat or circulation.
  anaphylaxis: {
    signs: {
      hives: sign(String.raw`hives|welts|urticaria|nesselsucht|quaddeln|nesselausschlag|ronchas|habones|urticaire|orticaria|bulten|netelroos|galbulten|urticaria|vergoes`),
      swelling: sign(String.raw`(?:face|lips?|tongue|throat|eyes) (?:\w+ ){0,2}(?:swell\w*|swollen|puff\w*)|(?:swell\w*|puff\w*) (?:\w+ ){0,2}(?:face|lips?|tongue|throat)`,
        String.raw`(?:gesicht|lippen?|zunge|hals) (?:\w+ ){0,4}(?:schwill\w*|geschwollen|zugeschwollen|angeschwollen|dick)|(?:schwellen|schwillt) (?:\w+ ){0,2}(?:gesicht|lippen|zunge)`,
        String.raw`(?:se (?:me |le )?(?:hincha|hinchan|esta hinchando)) (?:\w+ ){0,2}(?:cara|labios?|lengua|garganta)|(?:cara|labios?|lengua) hinchad[oa]s?`,
        String.raw`(?:visage|levres?|langue|gorge) (?:\w+ ){0,2}(?:gonfl\w*|enfl\w*)`,
        String.raw`(?:si gonfia|si gonfiano|gonfi[oa]) (?:\w+ ){0,2}(?:faccia|labbra|lingua|gola)|(?:faccia|labbra|lingua) (?:\w+ )?gonfi\w*`,
        String.raw`(?:gezicht|lippen?|tong|keel) (?:\w+ ){0,2}(?:zwel\w*|opgezwollen|dik)`,
        String.raw`(?:cara|labios?|lingua|garganta) (?:\w+ ){0,2}(?:inch\w*)|(?:a inchar|inchad[oa])`),
      throat: sign(String.raw`throat (?:\w+ )?(?:tight|closing|swelling)|cant swallow|hard to swallow|hoarse|hals (?:ist |wird )?(?:eng|zu)|kann (?:kaum )?schlucken|me cierra la garganta|le cuesta tragar|no puedo tragar|gorge serree|du mal a avaler|avale mal|gola chiusa|fatica a deglutire|keel (?:zit )?dicht|moeilijk slikken|garganta fechada|custa(?: lhe)? engolir`),
      faint: sign(String.raw`feel(?:ing)? faint|passing out|going to pass out|schwarz vor (?:den )?augen|me (?:estoy )?mare\w*|me voy a desmayar|je me sens partir|mi sento svenire|voel me flauw|flauw worden|vou desmaiar|sinto que vou desmaiar`),
      breath: sign(BREATHLESS, String.raw`wheez\w*|keuch\w*|pfeif\w*|pitos|sibil\w*|piep\w*|chiado`),
      trigger: sign(String.raw`pill|tablet|antibiotic|dose|after (?:the|my)|tablette|antibiotikum|pastilla|antibiotico|comprime|cachet|antibiotique|compressa|pastiglia|tablet|pil|antibioticum|comprimido|depois d`),
    },
    combos: [['hives', 'faint'], ['hives', 'breath'], ['hives', 'throat'], ['swelling', 'throat'], ['swelling', 'breath'], ['swelling', 'trigger']],
  },
  // Columbia C-SSRS ideation items and indirect cues (NICE NG225).
  suicidal: {
    signs: {
      goodbye: sign(String.raw`said goodbye to (?:everyone|everybody|all)|goodbye (?:letters?|notes?|messages?)|wrote letters to|gave away my (?:stuff|things)|giving away my|verabschiedet|abschiedsbrief\w*|me he despedido de todos|cartas? de despedida|dit adieu|lettres? d adieu|ho salutato tutti|lettere d addio|iedereen gedag gezegd|afscheidsbrie\w*|despedi me de todos|cartas? de despedida|regalado mis cosas|donne mes affaires|verschenkt|(?:this is )?my last message|meine letzte nachricht|mi ultimo mensaje|mon dernier message|il mio ultimo messaggio|mijn laatste bericht|a minha ultima mensagem|ultimo mensaje|dernier message|ultimo messaggio|laatste bericht|ultima mensagem`),
      noneed: sign(String.raw`wont need (?:it|them) (?:anymore|any more)|brauch(?:e)? (?:ich|es) nicht mehr|ya no (?:la |lo )?voy a necesitar|j en aurai plus besoin|non mi servira piu|heb het niet meer nodig|ja nao vou precisar|not be (?:around|here)|wont be (?:around|here)`),
      hoard: sign(String.raw`(?:enough )?(?:pills|tablets) saved|saved (?:up )?enough|enough (?:pills|tablets) (?:saved|to do it)|genug tabletten (?:gesammelt|gespart)|assez de cachets|pastillas guardadas|suficientes pastillas|pillole da parte|abbastanza pillole|genoeg pillen|pillen gespaard|comprimidos guardados|sav(?:e|ing) (?:up )?(?:my )?(?:pills|tablets)|stockpil\w*|sammle (?:\w+ )?(?:meine )?tabletten|guardando (?:las )?pastillas|garde (?:mes )?cachets de cote|mettendo da parte le pillole|spaar (?:\w+ )?pillen op|guardar comprimidos`),
      sleep: sign(String.raw`sleep and never wake|never wake up|not wake up again|nicht mehr aufwachen|no despertar nunca|no despertar mas|ne plus me reveiller|non svegliarmi piu|nooit meer wakker|nunca mais acordar`),
      burden: sign(String.raw`better off without me|besser (?:dran|ohne mich)|mejor sin mi|mieux sans moi|meglio senza di me|beter af zonder mij|melhor sem mim`),
      dead: sign(String.raw`wish (?:i was|i were|to be|id be) dead|(?:want|wanna) to die|wanna die|(?:life|it) (?:is not|isnt|s not) worth living|not worth living anymore|ware (?:ich )?(?:lieber )?tot|wunschte,? ich ware tot|will (?:nur noch )?sterben|mochte sterben|mochte tot sein|estuviera muert[oa]|quiero morir(?:me)?|no quiero vivir|voudrais (?:etre mort\w*|mourir)|envie de mourir|veux mourir|essere mort[oa]|voglio morire|vorrei morire|dood (?:was|zijn|wil)|wil dood|wil niet meer leven|estar mort[oa]|quero morrer|nao quero viver|queria morrer`),
      end: sign(String.raw`van het leven (?:te )?beroven|zelfmoord (?:plegen|te plegen)|end it|end my life|kill myself|not (?:want|wanna) to (?:live|be here)|no point (?:anymore|living)|ich will nicht mehr leben|schluss machen|acabar con todo|quitarme la vida|en finir|mettre fin|farla finita|togliermi la vita|er een eind aan|eind aan maken|acabar com tudo|tirar a minha vida`),
    },
    combos: [['goodbye'], ['hoard'], ['sleep'], ['burden'], ['noneed', 'goodbye'], ['end'], ['dead']],
  },
  self_harm: {
    signs: {
      cut: sign(String.raw`(?:cut|cutting|slash\w*) (?:my|her|his) (?:arms?|wrists?|legs?|thighs?)|(?:arme|handgelenke?|beine) (?:\w+ )?(?:aufgeschnitten|aufgeschlitzt|geritzt)|taillad\w*|(?:coupe|coupee) (?:les|mes) (?:bras|poignets|cuisses)|tagliat[oa] (?:le braccia|i polsi|le gambe)|opengesneden|(?:armen|polsen) (?:\w+ )?gesneden|cortar (?:me )?(?:os|los) (?:bracos|brazos|pulsos|munecas)|cortado los brazos|cortei os (?:bracos|pulsos)|cutting (?:myself|herself|himself)|cut(?:s)? myself|hurting (?:myself|herself|himself)|self harm\w*|harming (?:myself|herself)|burn(?:ed|t)? (?:myself|my arm|my skin) on purpose|fresh cuts`,
        String.raw`ritz\w*|schneide mich|verletz\w* sich selbst|selbstverletz\w*|frische schnitte|(?:mich|sich) (?:\w+ ){0,5}verbrannt`,
        String.raw`cortando(?:me)?|me corto|me vuelvo a cortar|autolesi\w*|se hace dano|cortes (?:nuevos|frescos)|me queme (?:\w+ ){0,2}a proposito`,
        String.raw`scarifi\w*|me recoupe|me coupe|se fait du mal|automutil\w*|coupures fraiches|brulee? expres`,
        String.raw`tagliarmi|mi taglio|si fa del male|autolesion\w*|tagli freschi|bruciat[oa] apposta`,
        String.raw`snij mezelf|mezelf snijden|doet zichzelf pijn|zelfbeschadig\w*|verse sneden|mezelf (?:expres )?gebrand`,
        String.raw`cortar me|corto me|a magoar se|automutil\w*|cortes novos|queimei me de proposito`),
      hurt: sign(String.raw`hurt myself|hurting myself|mich (?:\w+ ){0,2}verletzt|me hice dano|me hago dano|(?:me suis|me) (?:\w+ ){0,2}fait du mal|fatt[oa] (?:\w+ ){0,2}del male|mezelf (?:\w+ ){0,2}pijn (?:gedaan|doen)|magoei me|magoo me`),
      how: sign(String.raw`again|blade|razor|knife|on purpose|deliberately|klinge|rasierklinge|messer|absichtlich|wieder|cuchilla|navaja|a proposito|otra vez|lame|rasoir|couteau|expres|encore|lametta|coltello|apposta|di nuovo|mesje|scheermes|expres|weer|lamina|faca|de proposito|outra vez`),
    },
    combos: [['cut'], ['hurt', 'how']],
  },
  // Any number of tablets, a whole pack, a child, a double injection (leaflets 3 "if you take more than you should").
  overdose: {
    signs: {
      many: sign(String.raw`(?:took|taken|swallowed|had|ate) (?:like |about |maybe )?(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))|all|the whole|a whole|loads of|handful)|(?:whole|entire) (?:box|pack|packet|strip|bottle|blister)|(?:double|triple|2x|3x|twice) (?:my )?(?:the )?(?:dose|dosis|shot|injection)|injected (?:\w+ ){0,3}twice`,
        String.raw`(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))|alle|mehrere) (?:stuck|stueck|tabletten|pillen)|ganze (?:packung|schachtel|blister)|doppelte dosis|zweimal (?:\w+ )?gespritzt`,
        String.raw`(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))) (?:pastillas|comprimidos|capsulas)|(?:caja|tableta|blister) (?:entera|completa)|dosis doble|doble dosis|dos veces (?:el |la )?(?:\w+ )?(?:ozempic|wegovy|mounjaro|inyeccion)|me tome (?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))`,
        String.raw`(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))) (?:comprimes|cachets|gelules|pilules)|(?:toute la|la boite entiere|toute la boite|plaquette entiere|toute la plaquette)|double dose|deux fois (?:l |la )?(?:\w+ )?(?:ozempic|wegovy|mounjaro|injection)|j en ai pris (?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))`,
        String.raw`(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))) (?:compresse|pastiglie|pillole|capsule)|tutta la (?:scatola|confezione|scatoletta|striscia)|dose doppia|doppia dose|due volte (?:il |la )?(?:\w+ )?(?:ozempic|wegovy|mounjaro|iniezione)|ne ho prese (?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))`,
        String.raw`(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))) (?:pillen|tabletten|stuks|capsules)|hele (?:doos|strip|doosje|verpakking)|dubbele dosis|twee keer (?:\w+ )?gespoten`,
        String.raw`(?:(?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))) (?:comprimidos|pastilhas|capsulas)|caixa inteira|embalagem inteira|dose dupla|duas vezes (?:o |a )?(?:\w+ )?(?:ozempic|wegovy|mounjaro|injecao)|tomei (?:[3-9]|[1-9]\d{1,2})(?! (?:min\w*|hours?|hrs?|stunden|horas?|heures?|ore|uur|days?|tage|dias|jours|giorni|dagen|weeks?|times|mal|veces|fois|volte|keer|vezes|kg|kilos?|euros?|mg|years?|jahre|anos|ans|anni|jaar))`),
      child: sign(String.raw`(?:toddler|child|kid|son|daughter|baby|\d+ ?(?:yo|y o|yr old|year old)) (?:\w+ ){0,4}(?:swallowed|ate|eaten|got into)|(?:\d+ ?jahrige\w*|kleinkind) (?:\w+ ){0,6}(?:geschluckt|gegessen)|(?:kleine|kleiner|kind|sohn|tochter) (?:\w+ ){0,6}(?:geschluckt|gegessen)|(?:nino|hijo|hija) (?:\w+ ){0,4}(?:tragado|comido)|(?:fils|fille|enfant) (?:\w+ ){0,6}avale|(?:bambino|figlio|figlia) (?:\w+ ){0,4}(?:ingoiato|mangiato)|(?:peuter|kind|zoon|dochter) (?:\w+ ){0,4}(?:opgegeten|ingeslikt|doorgeslikt)|(?:filho|filha|crianca) (?:\w+ ){0,4}(?:engoliu|comeu)`),
      accident: sign(String.raw`by accident|accidentally|by mistake|aus versehen|versehentlich|sin querer|por error|par erreur|par accident|per sbaglio|per errore|per ongeluk|sem querer|por engano`),
      sick: sign(String.raw`feel (?:\w+ )?(?:weird|sick|awful|terrible|strange)|mir ist (?:\w+ )?schlecht|me encuentro fatal|me siento (?:muy )?mal|je me sens (?:\w+ )?mal|sto malissimo|sto male|voel me (?:\w+ )?(?:beroerd|ziek|raar|slecht)|estou muito mal|sinto me mal|throwing up|vomit\w*`),
    },
    combos: [['many'], ['child']],
  },
  heavy_bleeding: {
    signs: {
      soaking: sign(String.raw`soak\w* (?:a |through )?(?:pad|tampon)|(?:pad|tampon) every (?:\d+|half)|big clots|huge clots|golf ball|binde durch|jede (?:halbe )?stunde eine binde|grosse klumpen|empapo una compresa|compresa cada|grandes coagulos|serviette toutes les|gros caillots|assorbente ogni|grossi coaguli|verband vol|elk half uur|grote stolsels|penso a cada|coagulos grandes`),
      vomitblood: sign(String.raw`(?:vomit\w*|throwing up|coughing up) blood|blut (?:erbrech\w*|husten)|erbreche blut|vomit\w* sangre|vomis du sang|vomit\w* (?:du )?sang|vomitando sangue|sto vomitando sangue|braak bloed|bloed (?:braken|overgeven|ophoesten)|vomitar sangue`),
      wontstop: sign(String.raw`(?:wont|will not|doesnt|does not) stop bleeding|bleeding (?:wont|will not) stop|hort nicht auf zu bluten|blutet (?:und blutet|ohne ende|immer weiter)|no para de sangrar|saigne sans arret|ne s arrete pas de saigner|non smette di sanguinare|blijft bloeden|houdt niet op met bloeden|nao para de sangrar`),
    },
    combos: [['soaking'], ['vomitblood'], ['wontstop']],
  },
  ectopic_pregnancy: {
    signs: {
      pregnant: sign(String.raw`preg\b|preggers|wks preg\w*|positive test|test (?:was |is |came back )?positive|pregnan\w*|weeks pregnant|morning after|plan b|ec pill|test positiv|schwanger|pille danach|test positivo|embarazada|dia despues|test positif|enceinte|lendemain|pillola del giorno dopo|incinta|positieve test|zwanger|morning ?after ?pil|teste positivo|gravida|dia seguinte|ellaone|levonorgestrel|ulipristal`),
      onesided: sign(String.raw`(?:one|left|right) side(?:d)?|low (?:down )?on (?:the |one |my )?(?:left|right|side)|left low down|shoulder tip|tip of (?:my|the) shoulder|einseitig\w*|(?:links|rechts) unten|schulter|un lado|abajo a la (?:izquierda|derecha)|hombro|d un cote|a gauche en bas|a droite en bas|epaule|un lato|a sinistra in basso|a destra in basso|spalla|een kant|eenzijdig\w*|links ?onder\w*|rechts ?onder\w*|schouder\w*|um lado|em baixo a (?:esquerda|direita)|ombro`),
      pain: sign(String.raw`pain|cramp\w*|\w*schmerz\w*|dolor|douleur|dolore|\w*pijn|dor`),
      severe: sign(String.raw`sharp|awful|severe|terrible|agon\w*|bad|stark\w*|heftig\w*|fuert\w*|terrible|violent\w*|atroce|forte|hevig\w*|vreselijk\w*|horrivel|horrible`),
    },
    combos: [['pregnant', 'onesided', 'pain'], ['pregnant', 'severe', 'pain', 'onesided']],
  },
  sudden_vision_or_hearing_loss: {
    signs: {
      dark: sign(String.raw`(?:see|seeing|went|is|everything) (?:\w+ )?(?:black|dark)|(?:alles|sehe) (?:\w+ )?schwarz|veo (?:todo )?negro|vois (?:tout )?noir|vedo (?:tutto )?nero|zie (?:alles )?zwart|vejo (?:tudo )?preto`),
      eye: sign(String.raw`eye|auge|ojo|oeil|occhio|oog|olho`),
      curtain: sign(String.raw`curtain|shadow over (?:my|one) eye|vorhang|cortina|rideau|tenda davanti|gordijn`),
      cantsee: sign(String.raw`(?:went|gone|going) (?:dark|black|blurry and dark) in (?:one|my \w+) eye|blind in (?:my|one) \w* ?eye|cant see (?:out of|with|from) (?:my|one)|lost (?:the )?(?:vision|sight)|blind in one eye|half my vision|sehe (?:\w+ ){0,4}nichts mehr|halbe sicht|no veo (?:nada )?(?:por|con) el ojo|perdi (?:media )?vision|ne vois plus (?:rien )?(?:de|d) l oeil|la moitie de la vue|non vedo piu (?:dall|con l) occhio|meta vista|zie (?:\w+ ){0,3}niks meer met|halve zicht|deixei de ver|perdi (?:metade da )?visao`),
      deaf: sign(String.raw`(?:non sento|sento) piu niente dall orecchio|no oigo (?:nada )?(?:del|por el) oido|n entends plus rien (?:de|d) l oreille|hore (?:\w+ ){0,2}nichts mehr|hoor (?:\w+ ){0,3}niks meer|deixei de ouvir|deaf in (?:one|my) ear|cant hear (?:out of|in) (?:one|my)|lost (?:my )?hearing|(?:auf einem|einem) ohr taub|taub auf|sordo de un oido|sourd d une oreille|sordo da un orecchio|doof aan (?:een|mijn) oor|surdo de um ouvido`),
      sudden: SUDDEN,
    },
    combos: [['curtain'], ['cantsee'], ['deaf'], ['dark', 'eye']],
  },
  testicular_pain: {
    signs: {
      testicle: sign(String.raw`testic\w*|testes|balls?|nuts?|scrotum|hoden|testicul\w*|huevos|testicule\w*|couilles|bourses|testicol\w*|palle|zaadbal\w*|ballen|bal|testikel\w*|testiculo\w*|tomates`),
      severe: sign(String.raw`sudden\w*|agon\w*|terrible|unbearable|excruciating|out of nowhere|cant stand|higher|plotzlich|extrem\w*|holl\w*|auf einmal|repentin\w*|horrible|insoportable|de golpe|muchisimo|brutal\w*|atroce|insupportable|d un coup|violent\w*|improvvis\w*|fortissim\w*|insopportabile|terribile|plotseling|vreselijk\w*|heftig\w*|ineens|acuut|subita|horrivel|insuportavel|fortissima|de repente`),
      pain: sign(String.raw`pain|hurts?|ache|schmerz\w*|weh|dolor|duele|douleur|mal|dolore|male|pijn|dor|doi`),
    },
    combos: [['testicle', 'severe', 'pain']],
  },
  // GLP-1 leaflets 4: severe, persistent stomach pain that may reach the back, with or without vomiting.
  pancreatitis: {
    signs: {
      belly: sign(String.raw`stomach|belly|tummy|abdom\w*|upper belly|epigastr\w*|bauch\w*|oberbauch\w*|magen|tripa|barriga|estomago|abdomen|abdominal|ventre|estomac|pancia|stomaco|addom\w*|buik\w*|maag|barriga|estomago|abdomin\w*|boca do estomago|boca del estomago|bocca dello stomaco`),
      back: sign(String.raw`jusqu (?:au|dans le) dos|jusque dans le dos|hasta la espalda|fino alla schiena|tot (?:in )?(?:mijn|de|zijn|haar) rug|ate as costas|(?:to|into|through|thru|in) (?:my |his |her |the )?back|radiat\w*|bis (?:in den|zum) rucken|in den rucken|gurtelformig|hacia la espalda|a la espalda|atraviesa|dans le dos|irradi\w*|en barre|alla schiena|verso la schiena|a sbarra|naar (?:mijn |de |zijn )?rug|tot in (?:mijn |de |zijn )?rug|doorstraalt|para as costas|as costas|ate as costas`),
      severe: sign(String.raw`severe|terrible|agon\w*|awful|so bad|curled up|unbearable|heftig\w*|extrem\w*|holl\w*|stark\w*|fortisim[oa]|terrible|horrible|atroce|horrible|fortissim[oa]|terribile|hevig\w*|vreselijk\w*|fortissima|horrivel`),
      vomit: VOMITING,
    },
    combos: [['belly', 'back'], ['belly', 'severe', 'vomit']],
  },
  severe_skin_reaction: {
    signs: {
      blister: sign(String.raw`blister\w*|peel\w*|skin (?:\w+ ){0,2}(?:coming off|falling off)|blasen|haut (?:\w+ ){0,2}(?:lost sich|schalt sich|schaelt sich)|ampollas|(?:se me )?(?:pela|despega) la piel|piel (?:se )?(?:pela|despega)|cloques|peau (?:\w+ ){0,2}(?:pele|decolle|part en lambeaux)|se decolle|bolle|vesciche|pelle (?:\w+ ){0,2}(?:si stacca|si sfalda|si spella)|si sfalda|blaren|huid (?:\w+ ){0,2}(?:laat los|vervelt)|vervelt|bolhas|pele (?:\w+ ){0,2}(?:a descascar|a soltar se|solta)|a soltar se`),
      mouth: sign(String.raw`(?:mouth|lips) (?:\w+ ){0,2}(?:sores|ulcers|blisters)|sores (?:in|on) (?:my )?(?:mouth|private|genital)|mund voller blasen|blasen im mund|llagas en (?:toda )?la boca|aphtes|plaies sur les parties|bocca piena di piaghe|piaghe|mond vol zweer\w*|zweertjes|aftas|feridas na boca`),
      eyes: sign(String.raw`eyes (?:\w+ ){0,2}(?:red|crusty|sore|burning)|red eyes|augen (?:\w+ ){0,2}(?:entzundet|entzuendet|rot)|ojos rojos|yeux rouges|occhi rossi|rode ogen|olhos vermelhos`),
      rash: sign(String.raw`rash (?:\w+ ){0,3}(?:everywhere|spreading|all over)|(?:ausschlag|flecken) (?:\w+ )?(?:uberall|am ganzen)|ausschlag uberall|sarpullido (?:por )?(?:todo|todas)|plaques partout|eruzione ovunque|uitslag overal|manchas no corpo todo|rash`),
      fever: FEVER,
      drug: sign(String.raw`antibiotic\w*|doxy\w*|azithro\w*|nitrofuran\w*|fosfomy\w*|amoxi\w*|antibiotik\w*|antibiotico|antibiotique|antibioticum|truvada|prep`),
    },
    combos: [['blister', 'fever'], ['blister', 'drug'], ['mouth', 'eyes'], ['mouth', 'rash'], ['blister', 'mouth'], ['mouth', 'fever']],
  },
  // Dapoxetine SmPC 4.4/4.5; Hunter criteria.
  serotonin_syndrome: {
    signs: {
      drug: SEROTONERGIC,
      tremor: TREMOR,
      sweat: SWEATING,
      hot: HOT,
      agitated: sign(AGITATED, CONFUSED),
      heart: FAST_HEART,
      diarrhoea: DIARRHOEA,
    },
    combos: [['drug', 'tremor', 'hot'], ['drug', 'tremor', 'sweat'], ['drug', 'tremor', 'heart'], ['drug', 'agitated', 'sweat'], ['drug', 'tremor', 'agitated'], ['drug', 'hot', 'heart'], ['drug', 'diarrhoea', 'tremor'], ['tremor', 'hot', 'heart'], ['tremor', 'sweat', 'diarrhoea', 'hot']],
  },
  hypoglycaemia: {
    signs: {
      lowsugar: sign(String.raw`bajada de azucar|bajon de azucar|unterzuckerung|sugar crash|crisi ipoglicemica|baisse de sucre|suikerdip|quebra de acucar|(?:meter|messgerat|messgeraet|glucometro|lecteur|glucometer|sensor|libre) (?:\w+ ){0,2}(?:says|shows|zeigt|marca|indique|segna|geeft|mostra) (?:[1-4](?: \d)?|[1-5]\d)\b|hypo\b|hypoglyc\w*|low (?:blood )?sugar|sugar (?:is )?(?:very |really )?low|(?:bs|bg|sugar|glucose) (?:is )?[1-3](?: \d)?\b|unterzucker\w*|zucker (?:ganz |sehr )?(?:niedrig|tief)|zucker [1-5]\d\b|hipogluc\w*|azucar (?:muy )?bajo|azucar [1-5]\d\b|glycemie 0 [1-5]|hypoglyc\w*|sucre (?:tres )?bas|ipoglic\w*|zucchero (?:bassissimo|molto basso)|glicemia [1-5]\d\b|suiker (?:heel |erg )?laag|suiker [1-3] \d|hipoglic\w*|acucar (?:muito )?baixo|glicemia [1-5]\d\b`),
      diabetic: sign(String.raw`insulin\w*|gliclazid\w*|glimepirid\w*|sulfonylur\w*|diabet\w*|insulina|insuline`),
      signs: sign(TREMOR, SWEATING, CONFUSED, String.raw`passing out|cant think|schwarz|desmay\w*|tomber|svenire|onderuit|desmaiar`),
    },
    combos: [['lowsugar', 'signs'], ['diabetic', 'signs', 'lowsugar'], ['lowsugar', 'diabetic']],
  },
  // EMA PRAC 2014 combined hormonal contraception leaflets; NHS DVT / PE.
  thrombosis: {
    signs: {
      leg: ONE_LEG,
      breath: sign(BREATHLESS),
      pleuritic: PAIN_ON_BREATHING,
      pill: PILL_CONTRACEPTIVE,
      sudden: SUDDEN,
    },
    combos: [['leg'], ['pleuritic', 'pill'], ['breath', 'sudden', 'pill'], ['pleuritic', 'sudden']],
  },
  // GLP-1 SmPC 4.8: cholelithiasis, cholecystitis.
  gallbladder: {
    signs: {
      ruq: RIGHT_UPPER,
      fever: sign(FEVER, RIGORS),
      yellow: YELLOW,
      glp1: GLP1,
      pain: sign(String.raw`pain|hurts|schmerz\w*|dolor|douleur|dolore|pijn|dor|male`),
    },
    combos: [['ruq', 'fever'], ['ruq', 'yellow'], ['ruq', 'glp1', 'pain']],
  },
  // GLP-1 leaflets 2: dehydration from vomiting or diarrhoea.
  dehydration: {
    signs: {
      loss: sign(VOMITING, DIARRHOEA),
      keep: CANT_KEEP_DOWN,
      nourine: NO_URINE,
      weak: DIZZY_WEAK,
      dry: DRY,
      water: sign(String.raw`water|fluids|liquids|wasser|agua|liquidos|eau|acqua|liquidi|water|vocht|agua`),
      nokeep: sign(String.raw`kein wasser (?:\w+ ){0,3}behalten|geen (?:water|vocht) binnen|cant keep (?:anything|water|fluids|liquids|drinks?) down|no retengo|no (?:le )?retiene|ne garde (?:pas|rien)|non (?:trattengo|trattiene)|nao (?:seguro|segura|consigo segurar)`),
    },
    combos: [['loss', 'nourine'], ['loss', 'keep', 'weak'], ['nokeep', 'weak'], ['loss', 'dry'], ['keep', 'nourine'], ['keep', 'water', 'weak'], ['dry', 'nourine']],
  },
  // U2, U1b: loin pain with fever or rigors.
  kidney_infection: {
    signs: {
      flank: sign(String.raw`flank|loin|kidney|side/back|(?:pain|ache) in (?:my |the |her |his )?side|side pain|lower back|flanke\w*|niere\w*|nierenschmerz\w*|costado|rinon\w*|rinones|lumbar|flanc|rein|reins|fianco|reni|rene|flank\w*|in (?:mijn|de|haar|zijn) zij|zijpijn|nier\w*|rechterflank|linkerflank|rins|rim|lado (?:direito|esquerdo) das costas|lombar`),
      fever: sign(FEVER, RIGORS),
      uti: sign(String.raw`uti|cystitis|burning (?:pee|when peeing|urine)|bladder|brennen beim|blase\w*|cistitis|escozor|cystite|brulures? en urinant|ca brule|cistite|bruciore|brucia|blaasontsteking|branderig|brandt|ardor|arde`),
    },
    combos: [['flank', 'fever']],
  },
  liver: {
    signs: {
      yellow: YELLOW,
      darkurine: sign(String.raw`(?:pee|urine|wee) (?:\w+ ){0,2}(?:cola|dark|brown)|dark (?:pee|urine)|urin wie cola|dunkler urin|orina (?:como )?(?:cocacola|oscura)|urines? (?:couleur coca|foncees?)|urina (?:color coca cola|scura)|urine scure|plas als cola|donkere urine|urina (?:cor de coca cola|escura)`),
      pale: sign(String.raw`pale (?:poo|stools?)|(?:poo|stool) (?:is )?pale|stuhl (?:ist )?hell|heller stuhl|heces claras|selles claires|feci chiare|ontlasting (?:is )?licht|fezes claras`),
      itch: sign(String.raw`itch\w*|juck\w*|picor|me pica|gratte|prurit|prurito|jeuk|comichao`),
    },
    combos: [['yellow'], ['darkurine', 'pale'], ['darkurine', 'itch']],
  },
  chest_pain: {
    signs: {
      chest: sign(String.raw`chest|brust|pecho|poitrine|petto|borst|peito|thorax|torace`),
      squeeze: sign(String.raw`pain|pressure|tight\w*|crush\w*|squeez\w*|heavy|elephant|band|hurts|schmerz\w*|druck|eng|dolor|opresion|aprieta|peso|douleur|serre|poids|oppress\w*|dolore|stringe|pijn|druk|knell\w*|dor|aperto`),
      radiating: sign(String.raw`(?:left )?arm|jaw|kiefer|brazo|mandibula|bras|machoire|braccio|mascella|kaak|linkerarm|braco|maxilar`),
      sweat: sign(SWEATING, String.raw`sick|nause\w*|ubel|schlecht|mareo|nausea|nausee|enjoo|misselijk`),
    },
    combos: [['chest', 'squeeze', 'radiating'], ['chest', 'squeeze', 'sweat']],
  },
  breathing: {
    signs: {
      breath: BREATHLESS,
      blue: sign(String.raw`(?:lips|face) (?:\w+ ){0,2}(?:blue|grey|gray)|blue lips|lippen (?:\w+ )?blau|grau|labios (?:\w+ )?(?:morados|azules)|levres (?:\w+ )?bleues|labbra (?:\w+ )?(?:viola|blu)|lippen (?:\w+ )?blauw|labios (?:\w+ )?(?:roxos|azuis)`),
      talk: sign(String.raw`cant (?:finish|get) (?:a |my )?(?:sentence|word)|cant (?:speak|talk)|kann (?:nicht mehr|kaum) sprechen|keinen satz|no puedo hablar|ne peux pas finir ma phrase|non riesco a parlare|geen zin (?:kan )?afmaken|nao consigo falar`),
      ribs: sign(String.raw`sucking in under (?:his|her) ribs|ribs sucking in|rest\w*|au repos|da ferm[oa]|in rust|parad[oa]|sentad[oa]|in ruhe`),
      gasp: sign(String.raw`gasping|ringt nach luft|hapt naar adem|se ahoga|suffoque|suffoc\w*|sufoc\w*|fatica a respirare`),
    },
    combos: [['breath', 'blue'], ['breath', 'talk'], ['breath', 'ribs'], ['gasp']],
  },
  fainting: {
    signs: {
      collapse: sign(String.raw`collapsed|passed out|blacked out|fainted|unconscious|umgekippt|zusammengebrochen|ohnmachtig|bewusstlos|se desplomo|desmay\w*|inconsciente|effondre\w*|evanoui\w*|tombe\w* dans les pommes|crollat[oa]|svenut[oa]|incosciente|in elkaar gezakt|flauwgevallen|bewusteloos|desmai\w*`),
      notwake: sign(String.raw`wont wake|not waking|not (?:really |properly )?(?:waking|responding)|wird nicht (?:richtig )?wach|wacht nicht auf|no reacciona|no despierta|ne se reveille pas|non si riprende|non si sveglia|wordt niet (?:goed )?wakker|nao acorda`),
      again: sign(String.raw`twice|again|head|pale|zweimal|wieder|blass|dos veces|otra vez|palid[oa]|deux fois|blanc|encore|due volte|pallid\w*|twee keer|weer|bleek|lijkbleek|duas vezes|outra vez|palid[oa]`),
    },
    combos: [['notwake'], ['collapse', 'again']],
  },
};

export interface LexiconSignHit {
  sign: string;
  /** Index of the first word of the sign's first match, in the text's words. */
  word: number;
  /** Index of its last word. */
  end: number;
  text: string;
}

interface CompiledClass {
  category: string;
  signs: Map<string, RegExp>;
  combos: string[][];
}
const COMPILED: CompiledClass[] = Object.entries(LEXICON).map(([category, c]) => ({
  category,
  signs: new Map(Object.entries(c.signs).map(([name, re]) => [name, new RegExp(`\\b(?:${re})\\b`, 'g')])),
  combos: c.combos,
}));

/**
 * Each class whose signs make one of its combinations in `text` (a normalised text: " words ... "),
 * with every match of each sign of that combination (the detector reads negation at each). `usable`
 * says whether a sign match counts (the detector passes "not negated").
 */
export function lexiconHits(text: string, usable: (start: number, end: number) => boolean): { category: string; signs: LexiconSignHit[] }[] {
  const wordAt = (i: number) => text.slice(0, i).split(' ').length - 2;
  const out: { category: string; signs: LexiconSignHit[] }[] = [];
  for (const c of COMPILED) {
    // Signs are looked up lazily, once each: most texts fail a combination's first sign.
    const found = new Map<string, LexiconSignHit | null>();
    const lookup = (name: string): LexiconSignHit | null => {
      if (found.has(name)) return found.get(name)!;
      const re = c.signs.get(name)!;
      re.lastIndex = 0;
      let hit: LexiconSignHit | null = null;
      for (const m of text.matchAll(re)) {
        const word = wordAt(m.index);
        const end = Math.max(word, wordAt(m.index + m[0].length));
        if (!usable(word, end)) continue;
        hit = { sign: name, word, end, text: m[0].trim() };
        break;
      }
      found.set(name, hit);
      return hit;
    };
    const combo = c.combos.find((names) => names.every((n) => lookup(n) !== null));
    if (combo) out.push({ category: c.category, signs: combo.map((n) => found.get(n)!) });
  }
  return out;
}

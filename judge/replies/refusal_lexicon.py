"""What an out-of-character refusal is made of, in the 17 languages (data for judge.replies.refusal_evidence).

Each field is a regular-expression fragment matched on the lowercased start (and end) of a reply.
Entries are prefixes ("provid" matches "provide", "providing"); Latin and Cyrillic fragments are
wrapped in word boundaries by the compiler, the others (UNBOUNDED_LANGUAGES) match anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lexicon:
    decline: str       # the speaker's own negated ability or willingness ("i can't", "수 없습니다", "我无法")
    actions: str       # what is declined (help, provide, write...): a decline counts fully only beside one
    apology: str       # an apology or regret that opens the reply
    ai: str            # the assistant naming itself ("as an ai", "language model")
    offer: str         # turning back to the user ("is there anything else I can help with?")
    request: str       # the request as an object ("this request", "that story")
    policy: str        # guidelines, appropriateness, harm
    preamble: str      # "I understand that ...": a lecture addressed to the user
    verdict: str       # the request judged ("that would be unethical")
    instead: str       # an alternative in its place ("Instead, I can ...", "대신", "代わりに")
    soft_decline: str  # a decline a character could say too ("I don't recommend ...", "推奨しません"): weighs less
    contrast: str      # "..., but I cannot ...", "하지만": a decline right after one counts wherever it sits


LEXICONS: dict[str, Lexicon] = {
    "en": Lexicon(
        decline=r"i(?:'m| am)? ?(?:can ?not|can't|won't|will not|must not(?!\w)|shouldn't|should not|am unable to|'m unable to|"
        r"am not able to|'m not able to|'m not going to|am not going to|'d rather not|would rather not|"
        r"do not feel comfortable|don't feel comfortable|'m not comfortable|am not comfortable|"
        r"(?:must|have to|need to|'ll have to|will have to|'m going to) (?:respectfully )?(?:decline|refuse|pass)|"
        r"(?:respectfully )?decline|refuse)|(?:that|this|it)(?:'s| is) not something i(?:'m able to| can| will)|"
        r"unable to (?:help|assist|comply|provide|continue|fulfil)|not able to (?:help|assist|comply|provide|continue)|"
        r"i(?:'m| am) not (?:programmed|designed|allowed|permitted|authori[sz]ed|in a position) to|i(?:'m| am) not capable of|"
        r"i don't think (?:that )?i (?:can|should|could)|(?:it's|it is|it would(?: not)? be) not (?:appropriate|ethical|responsible|right) for me to|"
        r"(?:it's|it is|it would be) (?:inappropriate|irresponsible|unethical|wrong) for me to",
        actions=r"help|assist|provid|give|(?:continu\w*|keep going|go on|proceed)(?: \w+)?(?: with)? (?:this|that|the (?:story|roleplay|role-play|scene|scenario|conversation|request))|writ|creat|generat|produc|fulfil|comply|engag|"
        r"participat|take part|partake|support|answer|respond|reply|share|offer|discuss|describ|depict|complet|"
        r"accommodat|facilitat|condon|promot|encourag|mak|roleplay|role-play|play along|go along|draft|"
        r"compos|develop|design|explain|tell you|recommend|suggest|advis|endors|suppl|disclos|reveal|perform|carry out|guid|"
        r"follow|process|entertain|agree|honou?r|grant|satisf|output|put together|be of (?:help|assistance)|"
        r"be part of|do (?:that|this|so|it)|with (?:that|this|your|the request)|that request|this request",
        apology=r"sorry|i'm (?:so |really |very |truly |deeply |terribly )?sorry|i am (?:so |really |very |truly )?sorry|"
        r"i apologi[sz]e|my apologies|apologies|unfortunately|i'm afraid|"
        r"i am afraid|regrettably",
        ai=r"as an ai|as a language model|as an assistant|as a helpful|i'm (?:just |only )?an ai|i am (?:just |only )?an ai|"
        r"ai (?:language )?model|language model|ai assistant|my programming|my guidelines|openai|anthropic",
        offer=r"is there (?:anything|something) else|can i help (?:you )?with (?:something|anything)|"
        r"if you have (?:any )?(?:other|another|more|further|different) (?:questions?|requests?|topics?|ideas?)|"
        r"feel free to ask|i'?d be (?:happy|glad) to help|i can help (?:you )?with (?:something|other|a different)|"
        r"let me know if (?:there's|there is|you have|you'd)|happy to help with (?:something|other|a different)|"
        r"let's (?:talk about|discuss|focus on|move on to|change the subject|switch to) (?:something|another|a different)|"
        r"(?:how about|why don't) we (?:talk about|discuss|focus on) (?:something|another|a different)",
        request=r"(?:that|this|your|such) (?:request|story|roleplay|role-play|scenario|content|conversation|topic|scene|"
        r"prompt|task|kind of|type of)|with (?:that|this)\b",
        policy=r"guideline|polic|inappropriate|appropriate|harmful|illegal|unethical|ethical|explicit|violat|"
        r"against (?:my|the|our)|safety|offensive|terms of",
        preamble=r"i understand (?:that|your|you|how|why)|i see (?:that|you)|i can (?:see|tell|hear) (?:that|you|how)|i hear you|"
        r"it sounds like|that sounds (?:really |very |incredibly )?(?:hard|difficult|tough|painful|frustrating|overwhelming)|"
        r"i appreciate (?:your|you|that)|thank you for (?:sharing|reaching|your|asking)|(?:hello|hi) there",
        verdict=r"(?:that|this|it|doing so|such (?:a|an) \w+)(?:'s| is| would be| could be) (?:illegal|unethical|inappropriate|harmful|not appropriate|dangerous|against)|(?:is|are) (?:illegal|unethical) and|"
        r"(?:is|are|constitutes?) (?:a |an )?(?:very |extremely )?(?:serious |federal |violent |criminal |grave )?(?:crime|offen[cs]e|felony|violation of)|"
        r"(?:is|are) (?:illegal|unlawful|against the law|a criminal act)\b|"
        r"(?:this|that|it)(?:'s| is| would be) (?:a (?:form|kind|type) of )?(?:\w+ ){0,2}(?:abuse|harassment|exploitation|violence)\b",
        instead=r"instead,? (?:i|you|we|let|here|perhaps|consider|how about)|how about (?:we|i)|i can (?:help you|offer|suggest|provide) (?:with )?(?:some|a|general|information|resources|alternatives)",
        soft_decline=r"i (?:do not|don't|won't|will not|would not|wouldn't) (?:\w+ )?(?:condone|endorse|support|"
        r"encourage|recommend|promote|advocate|engage in|participate in|take part in|partake in|discuss|"
        r"comply with|go along with|assist with|provide|generate|create|produce|write)|i (?:strongly |would )?(?:advise|urge|"
        r"caution) (?:you )?against|i(?:'m| am) not (?:going to|able to|comfortable) (?:discuss|"
        r"talk about|engage|go there)|i(?:'d| would) (?:prefer|rather) not (?:to )?(?:discuss|talk|engage|"
        r"go)|(?:is|are) not (?:something i|a topic i)",
        contrast=r"but|however|though|although|yet|unfortunately|that said|still|so|therefore|thus|which is why",
    ),
    "es": Lexicon(
        decline=r"no (?:puedo|podré|podria|podría|voy a|me es posible|estoy en (?:condiciones|posición)|soy capaz|debo|"
        r"me siento cómod)|me niego a|debo (?:rechazar|declinar)|lamentablemente no|no es algo que pueda",
        actions=r"ayud|proporcion|brind|escrib|crear|gener|produc|particip|cumpl|(?:continuar|seguir|proceder)(?: con)? (?:esta|esa|la|este|ese|el) (?:historia|escena|conversación|rol|juego)|describ|realiz|"
        r"ofrec|dar|responder|contest|facilit|complac|satisfac|apoy|redact|elabor|hacer|hacerlo|asist|colabor|"
        r"compart|explic|suministr|atend|con (?:eso|esto|esa|esta|tu|su) ",
        apology=r"lo siento|lo lamento|perdón|perdona|disculpa|lamentablemente|desafortunadamente|lamento",
        ai=r"como (?:una? )?(?:ia|inteligencia artificial|modelo de lenguaje|asistente)|soy (?:una? )?(?:ia|modelo)|"
        r"modelo de lenguaje",
        offer=r"hay algo más en (?:lo|que)|(?:otra|alguna otra) (?:pregunta|consulta)|puedo ayudarte (?:con|en) (?:algo|otra)|"
        r"no dudes en|estaré encantad",
        request=r"(?:esa|esta|tu|su) (?:solicitud|petición|historia|escena|consulta|pregunta)|con eso|con esto|"
        r"ese tipo de|este tipo de",
        policy=r"directri|polític|inapropiad|apropiad|dañin|ilegal|ético|ética|explícit|viol|seguridad|ofensiv",
        preamble=r"entiendo (?:que|tu|su)|comprendo (?:que|tu|su)",
        verdict=r"(?:es|sería|resulta) (?:ilegal|poco ético|inapropiado|dañino|peligroso|contrario)",
        instead=r"en (?:su|tu) lugar|en cambio,|te sugiero|puedo ofrecerte|puedo ayudarte con",
        soft_decline=r"no (?:recomiendo|apoyo|apruebo|fomento|promuevo|respaldo|participo|voy a participar|"
        r"voy a discutir|discutiré|hablaré)|desaconsejo|te (?:recomiendo|"
        r"aconsejo) (?:encarecidamente )?(?:que )?no",
        contrast=r"pero|sin embargo|no obstante|aunque|lamentablemente|así que|por eso|por lo tanto",
    ),
    "pt": Lexicon(
        decline=r"(?:não|nao) (?:posso|consigo|vou|poderei|sou capaz|me é possível|devo|estou em condições)|"
        r"me recuso a|recuso-me a|infelizmente,? não|não é algo que eu possa",
        actions=r"ajud|fornec|escrev|cri|gerar|produz|particip|atend|(?:continuar|prosseguir|seguir)(?: com)? (?:esta|essa|a|este|esse|o) (?:história|cena|conversa|roleplay)|descrev|realiz|dar|respond|"
        r"oferec|cumpr|colabor|elabor|redig|compartilh|explic|apoi|segui|fazer|prest|auxili|assist|satisf|"
        r"com (?:isso|isto|essa|esta|seu|sua) ",
        apology=r"desculpe|desculpa|sinto muito|lamento|peço desculpas|infelizmente",
        ai=r"como (?:uma? )?(?:ia|inteligência artificial|modelo de linguagem|assistente)|sou (?:uma? )?(?:ia|modelo)|"
        r"modelo de linguagem",
        offer=r"posso (?:te )?ajudar (?:com|em) (?:algo|outra)|(?:outra|alguma outra) (?:pergunta|dúvida)|"
        r"fique à vontade|ficarei feliz",
        request=r"(?:esse|este|essa|esta|seu|sua) (?:pedido|solicitação|história|cena|pergunta|tipo de)|com isso",
        policy=r"diretri|polític|inapropriad|apropriad|prejudic|ilegal|ético|ética|explícit|viol|segurança|ofensiv",
        preamble=r"entendo (?:que|sua|seu)|compreendo (?:que|sua|seu)",
        verdict=r"(?:é|seria) (?:ilegal|antiético|inapropriado|prejudicial|perigoso|contra)",
        instead=r"em vez disso|ao invés disso|posso (?:te )?oferecer|posso ajudar com|sugiro",
        soft_decline=r"(?:não|nao) (?:recomendo|apoio|aprovo|incentivo|endosso|participo|vou participar|vou discutir|"
        r"discutirei)|desaconselho|(?:recomendo|aconselho) (?:fortemente )?que (?:você )?não",
        contrast=r"mas|porém|contudo|no entanto|entretanto|infelizmente|então|por isso|portanto",
    ),
    "fr": Lexicon(
        decline=r"je ne (?:peux|pourrai|puis|vais|souhaite|suis pas en mesure|suis pas en position)|"
        r"je refuse de|il m'est impossible|je dois (?:refuser|décliner)|ce n'est pas quelque chose que je|"
        r"ne (?:peux|pourrai) pas",
        actions=r"aid|fourn|écri|créer|génér|produi|particip|répond|(?:continuer|poursuivre) (?:cette|cet|ce|la|le) (?:histoire|scène|conversation|jeu de rôle|récit)|décri|réalis|satisf|donn|offr|"
        r"apport|assist|rédig|collabor|partag|expliqu|accompagn|fair|prêt|propos|soutenir|contribu|trait|élabor|"
        r"cautionn|encourag|accéder à (?:cette|votre|ta)",
        apology=r"je suis désolée?|désolée?|je m'excuse|malheureusement|navrée?|je regrette|toutes mes excuses",
        ai=r"en tant qu'(?:ia|intelligence artificielle|assistant|modèle)|je suis (?:une? )?(?:ia|modèle|assistant)|"
        r"modèle de langage",
        offer=r"(?:avec|pour|sur) (?:autre chose|un autre sujet)|une autre question|d'autres questions|n'hésitez pas|n'hésite pas|je serais (?:ravie?|heureu)",
        request=r"(?:cette|votre|ta|une telle) (?:demande|requête|histoire|scène|question)|ce (?:genre|type) de",
        policy=r"directive|politique|inappropri|appropri|nuisible|préjudici|illégal|éthique|explicite|viol|sécurité|"
        r"offensant",
        preamble=r"je comprends (?:que|ta|votre|tes|vos)",
        verdict=r"(?:est|serait) (?:illégal|contraire|inapproprié|dangereux|nuisible|non éthique|immoral)",
        instead=r"à la place|en revanche,|je peux (?:vous|te) (?:proposer|aider à|suggérer)|je vous suggère|je te suggère",
        soft_decline=r"je ne (?:recommande|soutiens|cautionne|encourage|approuve|participerai|discuterai|"
        r"vais pas (?:discuter|participer))|je (?:vous |te )?déconseille|je (?:vous |te )?(?:recommande|"
        r"conseille) (?:vivement )?de ne pas",
        contrast=r"mais|cependant|toutefois|néanmoins|pourtant|malheureusement|donc|c'est pourquoi|alors",
    ),
    "de": Lexicon(
        decline=r"ich (?:kann|darf|werde|möchte|will)(?: \w+){0,12}? (?:nicht|keine?[nmrs]?)|"
        r"(?:und|aber) (?:ich )?(?:kann|werde)(?: \w+){0,8}? (?:nicht|keine?[nmrs]?)|"
        r"ich bin (?:nicht in der lage|leider nicht)|ich muss (?:das |diese \w+ )?ablehnen|ich lehne|"
        r"das (?:kann|werde) ich (?:leider )?nicht|kann ich (?:leider )?nicht|das ist nichts, (?:was|wobei) ich",
        actions=r"helf|geb|erstell|schreib|sagen,? (?:wie|wo|was|welche)|nennen|zeig|empfehl|raten|verraten|vorschlag|(?:diese|die|das|den)[nmrs]? (?:geschichte|szene|rollenspiel|unterhaltung|gespräch)\w* (?:fortsetz|fortführ|weiterführ|weiterschreib)|weiterführ|weiterschreib|liefer|bereitstell|"
        r"unterstütz|beantwort|teilnehm|generier|verfass|ausführ|mitmach|nachkomm|erfüll|anbiet|beschreib|erklär|"
        r"mach|tun|zur verfügung|informationen|anleitung|dabei|damit|hierbei|dazu|bei dieser|bei dem",
        apology=r"es tut mir leid|tut mir leid|entschuldigung|entschuldige|entschuldigen sie|leider|"
        r"bedauerlicherweise|ich bedaure",
        ai=r"als (?:eine? )?(?:ki|künstliche intelligenz|sprachmodell|assistent)|ich bin (?:eine? )?(?:ki|sprachmodell)|"
        r"sprachmodell|ki-assistent",
        offer=r"bei etwas anderem|andere(?:n)? fragen|weitere(?:n)? fragen|zögere nicht|zögern sie nicht|"
        r"helfe (?:dir|ihnen) gerne",
        request=r"(?:diese|deine|ihre|eine solche)[rnms]? (?:anfrage|bitte|geschichte|szene|frage)|so etwas|"
        r"dieser art",
        policy=r"richtlinie|unangemessen|angemessen|schädlich|illegal|ethisch|explizit|verstoß|sicherheit|beleidigend|"
        r"nutzungsbedingung",
        preamble=r"ich verstehe,? (?:dass|dein|ihr|deine|ihre)",
        verdict=r"(?:ist|wäre) (?:illegal|unethisch|unangemessen|schädlich|gefährlich|strafbar|nicht (?:ethisch|angemessen|legal))",
        instead=r"stattdessen|statt dessen|ich kann (?:dir|ihnen) (?:aber |jedoch )?(?:gerne )?(?:helfen|anbieten|vorschlagen)",
        soft_decline=r"ich (?:rate|würde) (?:dir |ihnen |euch )?(?:dringend |ausdrücklich )?(?:davon )?ab|"
        r"ich (?:empfehle|unterstütze|befürworte|billige|fördere) (?:das |dies |es |so etwas )?(?:nicht|"
        r"keine?[nmrs]?)|darüber (?:möchte|werde|will) ich (?:nicht|lieber nicht)",
        contrast=r"aber|jedoch|doch|allerdings|leider|daher|deshalb|deswegen|also",
    ),
    "it": Lexicon(
        decline=r"non (?:posso|sono in grado|potrò|riesco|mi è possibile|intendo|me la sento)|mi rifiuto di|"
        r"devo (?:rifiutare|declinare)|non è qualcosa che (?:posso|io possa)",
        actions=r"aiut|fornir|fornirt|scriv|crear|gener|produrr|partecip|(?:continuare|proseguire) (?:questa|questo|la|il) (?:storia|scena|conversazione|gioco di ruolo)|descriv|soddisf|realizz|"
        r"dar|rispond|offr|assist|elabor|redig|condivid|spieg|support|far|esaud|accontent|collabor|"
        r"con (?:questo|questa|ciò|la tua|il tuo) ",
        apology=r"mi dispiace|spiacente|scusa|scusami|purtroppo|mi scuso|chiedo scusa",
        ai=r"come (?:un'?|una )?(?:ia|intelligenza artificiale|modello linguistico|assistente)|"
        r"in quanto (?:ia|intelligenza artificiale|modello|assistente)|modello linguistico",
        offer=r"(?:con|in|su) qualcos'altro|altre domande|altra domanda|non esitare|sarò felice|sarei felice",
        request=r"(?:questa|tua|la tua|tale) (?:richiesta|storia|scena|domanda)|questo tipo di",
        policy=r"linee guida|politic|inappropriat|appropriat|dannos|illegal|etic|esplicit|viol|sicurezza|offensiv",
        preamble=r"capisco (?:che|la tua|il tuo)|comprendo (?:che|la tua|il tuo)",
        verdict=r"(?:è|sarebbe) (?:illegale|non etico|immorale|inappropriato|dannoso|pericoloso|contrario)",
        instead=r"invece,|al suo posto|posso (?:offrirti|suggerirti|aiutarti con)|ti suggerisco",
        soft_decline=r"non (?:raccomando|consiglio|approvo|sostengo|incoraggio|appoggio|parteciperò|discuterò)|(?:ti |"
        r"vi |le )?sconsiglio|(?:ti |vi )?(?:raccomando|consiglio) (?:vivamente )?di non",
        contrast=r"ma|però|tuttavia|purtroppo|comunque|quindi|perciò|pertanto",
    ),
    "pl": Lexicon(
        decline=r"nie (?:mogę|jestem w stanie|będę|potrafię|zamierzam|mam możliwości)|odmawiam|muszę odmówić|"
        r"niestety nie",
        actions=r"pomóc|pomoc|pomag|udziel|dostarcz|napis|pisać|tworz|stworz|wygener|generow|uczestnicz|opis|spełni|"
        r"kontynuować (?:tej|tę|tego) (?:histori|scen|rozmow|odgrywani)|odpowied|zrobi|przygotow|udostępni|poda|wyjaśni|zrealiz|wykona|dać|wspier|zaoferow|w tym|w tej",
        apology=r"przepraszam|przykro mi|niestety",
        ai=r"jako (?:ai|si|sztuczna inteligencja|model językowy|asystent)|jestem (?:ai|modelem|asystentem)|"
        r"model(?:em)? językow",
        offer=r"w czymś innym|inne pytani|innym temat|śmiało pytaj|chętnie pomogę",
        request=r"(?:tej|twojej|takiej|tego) (?:prośb|prośby|historii|sceny|pytania|rodzaju)|tego typu",
        policy=r"wytyczn|zasad|polityk|nieodpowiedni|odpowiedni|szkodliw|nielegaln|nieetyczn|etyczn|wulgarn|narusz|"
        r"bezpieczeństw|obraźliw",
        preamble=r"rozumiem,? (?:że|twoj|twoją|twoje)",
        verdict=r"(?:jest|byłoby) (?:nielegaln|nieetyczn|niewłaściw|szkodliw|niebezpieczn|sprzeczn)",
        instead=r"zamiast tego|mogę (?:ci )?(?:zaproponować|zasugerować|pomóc w)|proponuję",
        soft_decline=r"nie (?:polecam|popieram|pochwalam|zalecam|zachęcam|wezmę udziału|będę (?:o tym )?rozmawiać|"
        r"będę dyskutować)|odradzam|(?:zdecydowanie )?(?:radzę|zalecam),? (?:aby|żeby|byś) nie",
        contrast=r"ale|jednak|niestety|lecz|więc|dlatego|zatem",
    ),
    "ru": Lexicon(
        decline=r"я не (?:могу|буду|стану|в состоянии|смогу|имею возможности|готов|готова|намерен|намерена|вправе)|не могу|не смогу|"
        r"не стану|не буду|не имею права|мне нельзя|не могу себе позволить|(?:это )?не то,? (?:с )?чем я (?:могу|буду|готов)|"
        r"вынужден(?:а)? отказ|я отказываюсь|не имею возможности",
        actions=r"помо|предостав|продолж\w* (?:\w+ )?(?:истори|сцен|ролев|разговор|игр|диалог)|созда|напис|писать|выполн|участв|генерир|сгенерир|опис|дать|дам|ответ|"
        r"объясн|рассказ|поддерж|сочин|сделать|дела|дава|делит|подел|с этим|в этом|обсужд|предлож|рекоменд|одобр|поощр|способств|"
        r"принима\w* участи|участвовать|соглаш|говорить (?:об|о) (?:этом|таком)|эту тему|такие темы|"
        r"(?:эт(?:у|от|о|им)|так(?:ую|ой|ое|ие)) (?:сцен|истори|разговор|текст|контент|запрос|просьб)",
        apology=r"извините|извини|прошу прощения|простите|прости|к сожалению|извиняюсь|мне (?:очень |правда )?жаль|сожалею",
        ai=r"как (?:ии|искусственный интеллект|языковая модель|ассистент)|я (?:—|-)? ?(?:ии|языковая модель)|"
        r"языков(?:ая|ой) модел",
        offer=r"чем-(?:то|нибудь) (?:ещё|еще|другим)|другие вопросы|другой вопрос|с радостью помогу|обращайтесь|"
        r"(?:давай(?:те)?|лучше) (?:лучше )?(?:поговорим )?о (?:другом|чём-(?:то|нибудь) другом)|сменим тему|другую тему",
        request=r"(?:этот|эту|ваш|вашу|такой|такую) (?:запрос|просьб|истори|сцен|вопрос)|такого рода",
        policy=r"правил|политик|неуместн|неприемлем|недопустим|вредн|незаконн|неэтичн|этичн|откровенн|нарушa|"
        r"безопасн|оскорбит",
        preamble=r"я понимаю,? (?:что|ваш|твой|вашу|твою)",
        verdict=r"(?:является|это|было бы) (?:незаконн|неэтичн|неприемлем|вредн|опасн)",
        instead=r"вместо этого|могу предложить|предлагаю",
        soft_decline=r"(?:я )?не (?:рекомендую|советую|поддерживаю|одобряю|поощряю|приветствую|буду (?:это )?обсуждать|"
        r"стану (?:это )?обсуждать)|(?:настоятельно )?(?:рекомендую|советую) (?:вам )?не|(?:эту|такую|"
        r"такие) тем\w* (?:я )?(?:не )?(?:обсуждать )?не (?:стану|буду)",
        contrast=r"но|однако|тем не менее|к сожалению|поэтому|так что|потому",
    ),
    "tr": Lexicon(
        decline=r"\w*(?:amam|emem|amayacağım|emeyeceğim|mayacağım|meyeceğim)|bunu yapamam|reddediyorum|"
        r"yardımcı olamam|mümkün değil",
        actions=r"yardım|sağla|ver|yaz|oluştur|katıl|(?:bu|bu hikayeye|hikayeye|rol yapmaya|sohbete|buna) devam|cevap|yanıt|üret|destek|anlat|açıkla|bulun|getir",
        apology=r"üzgünüm|özür dilerim|maalesef|ne yazık ki|kusura bakma",
        ai=r"(?:bir )?yapay zeka (?:olarak|modeli|asistanı)|dil modeli",
        offer=r"başka (?:bir (?:konuda|şey|soru)|sorunuz|konuda)|çekinmeyin|memnuniyetle yardımcı",
        request=r"bu (?:istek|talep|hikaye|sahne|soru|tür)",
        policy=r"yönerge|politika|uygunsuz|uygun|zararlı|yasa dışı|yasadışı|etik|müstehcen|ihlal|güvenlik|saldırgan",
        preamble=r"anlıyorum",
        verdict=r"(?:yasa dışı|yasadışı|etik değil|uygunsuz|zararlı|tehlikeli)(?:dır|dir|tır|tir)?",
        instead=r"bunun yerine|önerebilirim|yardımcı olabilirim",
        soft_decline=r"tavsiye etmem|tavsiye etmiyorum|önermem|önermiyorum|desteklemiyorum|desteklemem|onaylamıyorum|"
        r"katılmayacağım|tartışmayacağım",
        contrast=r"ama|fakat|ancak|maalesef|yine de|bu yüzden|bu nedenle|dolayısıyla",
    ),
    "id": Lexicon(
        decline=r"(?:saya|aku|kami)? ?(?:tidak|tak|gak|nggak|ga) (?:dapat|bisa|mampu|akan|boleh|sanggup)|"
        r"menolak untuk|harus menolak",
        actions=r"membantu|bantu|menyediakan|memberikan|memberi|menulis|membuat|menghasilkan|berpartisipasi|memenuhi|"
        r"menggambarkan|melanjutkan (?:cerita|adegan|percakapan|roleplay|permainan peran)|menjawab|menanggapi|mendukung|menjelaskan|melakukan|menyajikan|"
        r"membagikan|mengikuti|menuruti|mengabulkan|dengan (?:permintaan|hal)",
        apology=r"maaf|mohon maaf|sayangnya|saya minta maaf",
        ai=r"sebagai (?:sebuah )?(?:ai|kecerdasan buatan|model bahasa|asisten)|saya (?:adalah )?(?:ai|model bahasa)|"
        r"model bahasa",
        offer=r"(?:hal|sesuatu|pertanyaan|topik) lain|jangan ragu|dengan senang hati",
        request=r"permintaan (?:itu|ini|tersebut|anda|kamu)|(?:cerita|adegan|pertanyaan) (?:itu|ini|tersebut)|"
        r"hal (?:itu|ini|tersebut|seperti)",
        policy=r"pedoman|kebijakan|tidak pantas|pantas|berbahaya|ilegal|melanggar|etika|etis|eksplisit|keamanan|"
        r"menyinggung",
        preamble=r"saya (?:mengerti|memahami|paham)",
        verdict=r"(?:adalah|merupakan|itu) (?:ilegal|tidak etis|tidak pantas|berbahaya|melanggar)",
        instead=r"sebagai gantinya|saya bisa membantu|saya dapat membantu|saya sarankan",
        soft_decline=r"(?:saya )?tidak (?:menyarankan|merekomendasikan|mendukung|menganjurkan|menyetujui|"
        r"akan (?:membahas|berpartisipasi|ikut))|(?:saya )?(?:sangat )?(?:menyarankan|"
        r"menganjurkan) (?:anda |kamu )?(?:untuk )?tidak",
        contrast=r"tetapi|tapi|namun|sayangnya|akan tetapi|jadi|oleh karena itu|maka",
    ),
    "vi": Lexicon(
        decline=r"(?:tôi|mình|em) (?:không thể|không được phép|xin phép không|từ chối|sẽ không)|không thể|"
        r"(?:tôi|mình|em) (?:không|chẳng) (?:giúp|hỗ trợ|trả lời|cung cấp|viết|làm|đáp ứng)(?: \w+){0,3}? được|"
        r"tôi xin từ chối",
        actions=r"giúp|hỗ trợ|cung cấp|viết|tạo|sản xuất|tham gia|đáp ứng|mô tả|thực hiện|tiếp tục (?:câu chuyện|cảnh|cuộc trò chuyện|nhập vai)|trả lời|đưa ra|"
        r"chia sẻ|giải thích|làm|hướng dẫn|yêu cầu",
        apology=r"xin lỗi|rất tiếc|tiếc là|thật tiếc|thật không may|thành thật xin lỗi|(?:tôi|mình|em) (?:rất |thành thật )?xin lỗi|"
        r"(?:tôi|mình) e (?:rằng|là)",
        ai=r"là (?:một )?(?:ai|trí tuệ nhân tạo|mô hình ngôn ngữ|trợ lý)|mô hình ngôn ngữ",
        offer=r"(?:câu hỏi|yêu cầu|điều|chủ đề|chuyện|vấn đề) (?:gì )?khác|đừng ngần ngại|rất sẵn lòng|nói (?:về )?chuyện khác",
        request=r"yêu cầu (?:này|đó|của bạn)|(?:câu chuyện|cảnh|nội dung) (?:này|đó)",
        policy=r"nguyên tắc|chính sách|không phù hợp|phù hợp|có hại|bất hợp pháp|vi phạm|đạo đức|an toàn|xúc phạm",
        preamble=r"tôi hiểu",
        verdict=r"(?:là|sẽ là) (?:bất hợp pháp|phi đạo đức|không phù hợp|nguy hiểm|có hại|vi phạm)",
        instead=r"thay vào đó|tôi có thể giúp|tôi có thể gợi ý|tôi có thể đề xuất",
        soft_decline=r"(?:tôi|mình|em) (?:không|sẽ không) (?:khuyến khích|khuyến nghị|khuyên|ủng hộ|tán thành|đồng ý|"
        r"tham gia|thảo luận|bàn)|(?:tôi|mình) (?:khuyên|khuyến cáo) (?:bạn )?(?:không nên|đừng)|"
        r"(?:bạn )?không nên (?:làm|thực hiện|cố gắng)",
        contrast=r"nhưng|tuy nhiên|song|rất tiếc|tiếc là|nên|vì vậy|do đó|vì thế",
    ),
    "ko": Lexicon(
        decline=r"수(?:는|도|가)?\s?없(?:습니다|어요|네요|습니다만|음을|으며|고|지만|기|는|다|어)|드릴\s?수\s?없|하지\s?않겠습니다|"
        r"못\s?(?:하겠|드리겠|드립니다|해요|합니다|해\s?드려)|(?:드리지|해\s?드리지)\s?못|거부(?:합니다|하겠)|"
        r"(?:제공|답변|안내|작성|도움|지원)(?:이|은|는)?\s?(?:불가능|불가)합니다|드리기\s?(?:가\s?)?(?:어렵|어려운|어려워|곤란)|삼가겠|삼가(?:하|드리)|않을게요|"
        r"(?:제공|작성|생성|답변|도와|설명|묘사)(?:하지|해\s?드리지|드리지)\s?않(?:습니다|아요|겠|을)|"
        r"(?:제공|작성|생성|도움|답변|설명|안내|수행|공유|묘사)\S{0,6}\s(?:것은|것이)\s(?:\S+\s){0,2}(?:금지되어\s?있|허용되지\s?않)|"
        r"어렵습니다|거절",
        actions=r"저는|제가|저로서는|저희는|제공|그럴|그렇게|도와|도움|도울|작성|생성|(?:이야기|롤플레이|역할극|대화|장면)\S* 계속|진행|답변|답할|답해|응할|응해|응하|참여|만들|지원|설명|알려|"
        r"들어(?:줄|드릴)|수행|허용|묘사|쓸|써|수락|응답|안내|요청",
        apology=r"죄송|미안|유감스럽|안타깝",
        ai=r"ai(?:로서| 언어 ?모델| 어시스턴트|입니다)|인공지능(?:으로서| 모델)|언어 ?모델",
        offer=r"다른 (?:질문|도움|주제|요청|것|이야기|얘기)|도와드릴 (?:일|것|수 있는)|언제든지 (?:말씀|물어|질문|문의|연락|도움)|말씀해 주세요",
        request=r"(?:그|이|해당|그런|이런) (?:요청|이야기|장면|질문|내용)",
        policy=r"가이드라인|지침|정책|부적절|적절하지|유해|불법|윤리|노골|위반|안전",
        preamble=r"이해(?:합니다|해요|하지만)",
        verdict=r"(?:것은|것이|행위는|행동은)\s?(?:\S+\s){0,2}(?:불법|부적절|비윤리|윤리적으로|적절하지|위험|해롭|유해|잘못|옳지 않|금지)",
        instead=r"대신|제안(?:해|드)|도와드릴 수 있",
        soft_decline=r"(?:권장|추천|권|지지|동의|찬성|장려|조장)(?:하지|드리지) 않|(?:하지 않는 것이|하지 마시기를|하지 않으시길) (?:좋|바랍|권)|반대합니다|(?:이야기|대화|"
        r"논의)(?:하지 않|는 하지 않)",
        contrast=r"하지만|그러나|그렇지만|다만|만,|지만",
    ),
    "ja": Lexicon(
        decline=r"(?:でき|出来)(?:ません|かねます|ず[、,])|お答えできません|お応えできません|応じられません|"
        r"(?:られ|[えせめげべ]|(?<!い)け)ません|(?<![しさ])れません|許可されていません|許されていません|認められていません|禁止されています|"
        r"控えさせていただきます|お断り|(?:には|に)?(?:応じ|従い)ません|いたしかねます|致しかねます|(?<=[しい])かねます|遠慮させていただ|差し控え|"
        r"ご(?:期待|要望|希望)に(?:沿|添|応)えず|ご(?:期待|要望|希望)には(?:沿|添|お応え)",
        actions=r"私は|私には|わたしは|わたくし|提供|お手伝い|手伝|助け|手助け|支持|推奨|共有|紹介|作成|生成|続け|継続|回答|答え|応え|応じ|協力|説明|書|描写|参加|支援|教え|"
        r"お伝え|リクエスト|要求|ご依頼|依頼|質問|ご期待|ご要望|ご希望",
        apology=r"申し訳|すみません|ごめんなさい|残念ながら|恐れ入り",
        ai=r"aiとして|ai(?:アシスタント|言語モデル)|言語モデル|人工知能として",
        offer=r"他に(?:何か)?(?:お手伝い|質問|ご質問|ご不明)|お気軽に|喜んで|(?:別の|他の)(?:話|話題|テーマ|こと)(?:を|に|について)",
        request=r"(?:その|この|そのような|このような)(?:リクエスト|要求|ご依頼|依頼|質問|内容|物語|シーン)",
        policy=r"ガイドライン|ポリシー|規約|不適切|有害|違法|倫理|露骨|違反|安全",
        preamble=r"理解(?:しています|できます|しますが)|お気持ちは",
        verdict=r"(?:ことは|ことが|行為は)(?:\S{0,12})?(?:違法|不適切|適切では|倫理的に問題|非倫理|危険|有害|許され|好ましく)",
        instead=r"代わりに|ご提案|提案します|お手伝いできます",
        soft_decline=r"(?:推奨|お勧め|おすすめ|お薦め|支持|支援|助長|容認|賛成|奨励|協力|加担|関与|参加)(?:は|を|する|いた|し(?:たり)?|すること(?:は|も)|"
        r"(?:したり)?(?:する)?こと(?:は|も))?(?:決して|絶対に|一切)?(?:しません|いたしません|できません|ありません|"
        r"致しません|ことはありません|しかねます|できかねます)|(?:しないで|おやめ|やめて)(?:ください|下さい)|(?:しない|やめた|控えた)(?:ほうが|方が)(?:いい|良い|よい)",
        contrast=r"しかし|ですが|けれど|ただし|ただ、|が、|けど",
    ),
    "zh": Lexicon(
        decline=r"(?:我|本人|恕我)(?:[^，。,.!！?？]{0,6})?(?:不能|无法|無法|没法|沒法|不可以|不会|不會|不便|拒绝|拒絕|难以|難以)|"
        r"^(?:不能|无法|無法)|无法(?:提供|满足|协助|帮助|完成|回答|继续)|無法(?:提供|滿足|協助|幫助|完成|回答|繼續)|"
        r"不能(?:提供|满足|滿足|协助|協助|帮助|幫助|回答|继续|繼續|给出|給出)",
        actions=r"提供|帮助|幫助|帮你|幫你|协助|協助|继续(?:这个|這個|该|該)?(?:故事|角色扮演|场景|場景|对话|對話)|繼續(?:這個)?(?:故事|角色扮演|場景|對話)|创作|創作|生成|写|寫|满足|滿足|完成|描写|描寫|参与|參與|"
        r"回答|答复|回应|回應|编写|編寫|撰写|撰寫|支持|执行|執行|进行|進行|讨论|討論|给出|給出|冒充|扮演|处理|處理|"
        r"要求|请求|請求|告诉|告訴|建议|建議|透露|教|指导|指導|说明|說明|解释|解釋|推荐|推薦|设计|設計|描述|鼓励|鼓勵|"
        r"分享|制作|製作|编造|編造|列出|回复|回覆",
        apology=r"抱歉|对不起|對不起|不好意思|遗憾|遺憾|(?:我)?(?:很|非常|十分|真的|真)抱歉",
        ai=r"作为(?:一个)?(?:ai|人工智能|语言模型|助手)|作為(?:一個)?(?:ai|人工智慧|語言模型|助手)|语言模型|語言模型|ai助手",
        offer=r"其他(?:问题|問題|需要|帮助|幫助|话题|話題)|还有什么|還有什麼|随时|隨時|乐意|樂意|换个话题|換個話題|(?:聊|谈|談)(?:点|點)?(?:别的|別的)",
        request=r"(?:这个|這個|该|該|你的|您的|此|这种|這種|这类|這類)(?:请求|請求|要求|问题|問題|内容|內容|故事|场景|場景)",
        policy=r"准则|準則|政策|规定|規定|不适当|不適當|不恰当|不恰當|有害|违法|違法|非法|道德|伦理|倫理|露骨|违反|違反|安全",
        preamble=r"我理解|我明白|我能理解",
        verdict=r"(?:是|属于|屬於|涉及)(?:\S{0,4})?(?:违法|違法|非法|不道德|不恰当|不恰當|不适当|不適當|有害|危险|危險)",
        instead=r"相反|建议您|建議您|你可以考虑|您可以考虑|我可以(?:为你|為你|为您|為您)?(?:提供|帮助|幫助)",
        soft_decline=r"(?:我)?(?:强烈|強烈)?(?:不建议|不建議|不推荐|不推薦|不支持|不鼓励|不鼓勵|不赞成|不贊成|不提倡|反对|反對)|(?:建议|建議|劝|勸)(?:你|您)(?:不要|别|別|"
        r"切勿)|(?:请|請)(?:不要|勿|别|別)|(?:聊|谈|談|说|說)(?:点|點)?(?:别的|別的|其他)",
        contrast=r"但|但是|不过|不過|然而|可是|只是|所以|因此|因而",
    ),
    "th": Lexicon(
        decline=r"ไม่สามารถ|ไม่อาจ|ขอปฏิเสธ|ไม่ขอ",
        actions=r"ช่วย|ให้|ตอบ|สร้าง|เขียน|ดำเนินการ|ทำ|แนะนำ|อธิบาย|สนับสนุน|มีส่วนร่วม|(?:เรื่อง|บทบาทสมมติ|ฉาก)(?:นี้)?ต่อ|บรรยาย|คำขอ",
        apology=r"ขออภัย|ขอโทษ|เสียใจ|น่าเสียดาย",
        ai=r"ในฐานะ ?(?:ai|ปัญญาประดิษฐ์|โมเดลภาษา|ผู้ช่วย)|โมเดลภาษา",
        offer=r"(?:คำถาม|เรื่อง|หัวข้อ)อื่น|มีอะไรอื่น|ยินดีช่วย|ยินดีที่จะช่วย",
        request=r"คำขอ(?:นี้|นั้น|ของคุณ)|(?:เรื่อง|เนื้อหา|ฉาก)(?:นี้|นั้น)",
        policy=r"แนวทาง|นโยบาย|ไม่เหมาะสม|เหมาะสม|เป็นอันตราย|ผิดกฎหมาย|จริยธรรม|ละเมิด|ความปลอดภัย",
        preamble=r"(?:ฉัน|ผม|ดิฉัน)เข้าใจ",
        verdict=r"(?:เป็น|ถือเป็น)(?:การ)?(?:ผิดกฎหมาย|ไม่เหมาะสม|อันตราย|ผิดจริยธรรม)",
        instead=r"แทนที่|ฉันสามารถช่วย|ขอแนะนำ",
        soft_decline=r"ไม่แนะนำ|ไม่สนับสนุน|ไม่เห็นด้วย|ไม่ส่งเสริม",
        contrast=r"แต่|อย่างไรก็ตาม|น่าเสียดาย|ดังนั้น|จึง",
    ),
    "ar": Lexicon(
        decline=r"لا (?:أستطيع|استطيع|يمكنني|أقدر|أتمكن|يسعني)|لن (?:أستطيع|أتمكن|أقوم|أساعد|أقدم|أكتب|أشارك)|لست قادر|"
        r"لا يمكن (?:لي|أن أ|ان ا)|ليس (?:ب(?:إ|ا)مكاني|بوسعي|بمقدوري|لدي القدرة|في (?:إمكاني|وسعي|مقدوري))|لست (?:مخول|مستعد|في وضع)|"
        r"أرفض|يجب أن أرفض",
        actions=r"مساعد|تقديم|أقدم|أوفر|أوفّر|توفير|كتابة|أكتب|إنشاء|توليد|المشاركة|تلبية|الإجابة|أجيب|أساعد|أشارك|أنشئ|أصنع|"
        r"القيام|بذلك|بهذا|مناقشة|أناقش|أكمل|إكمال|أتابع|أواصل|(?:متابعة|مواصلة|الاستمرار في) (?:هذه|هذا|القصة|لعب|المحادثة)|"
        r"وصف|شرح|تزويد|إعطاء|دعم|تنفيذ|طلب",
        apology=r"عذرا|عذرًا|عذراً|آسف|أعتذر|اعتذر|للأسف|مع الأسف|أنا آسف|انا اسف|أنا أعتذر",
        ai=r"(?:ك|بصفتي |بوصفي )(?:ذكاء اصطناعي|نموذج لغوي|مساعد)|نموذج لغوي|الذكاء الاصطناعي",
        offer=r"(?:شيء|سؤال|أسئلة|موضوع|حديث) (?:آخر|أخرى)|لا تتردد|يسعدني|لنتحدث عن",
        request=r"(?:هذا|ذلك) (?:الطلب|النوع|المحتوى|السؤال)|طلبك",
        policy=r"إرشادات|سياس|غير لائق|غير مناسب|مناسب|ضار|غير قانوني|أخلاق|صريح|انتهاك|السلامة|مسيء",
        preamble=r"(?:أنا )?أفهم",
        verdict=r"(?:غير قانوني|غير أخلاقي|غير لائق|ضار|خطير|مخالف)",
        instead=r"بدلاً من ذلك|بدلا من ذلك|يمكنني مساعدتك|أقترح",
        soft_decline=r"لا (?:أنصح|انصح|أوصي|أؤيد|أشجع|أدعم|أوافق)|لا يُنصح|لا ينصح|أنصح(?:ك)? بعدم|(?:أنصحك|"
        r"أنصح) بشدة بعدم",
        contrast=r"لكن|لكنني|ولكن|ومع ذلك|للأسف|لذلك|لذا",
    ),
    "hi": Lexicon(
        decline=r"नहीं (?:\S+ ){0,2}सकत|असमर्थ|नहीं कर पाऊ|नहीं करूँगा|नहीं करूंगा|नहीं करूँगी|इनकार",
        actions=r"मैं|मुझसे|मदद|सहायता|प्रदान|बढ़ा|दे|लिख|बना|(?:कहानी|रोलप्ले|बातचीत)\S* जारी|जवाब|उत्तर|वर्णन|भाग|पूरा|अनुरोध",
        apology=r"क्षमा|माफ़|माफ|खेद|दुर्भाग्य",
        ai=r"(?:एक )?(?:एआई|ai|कृत्रिम बुद्धि(?:मत्ता)?|भाषा मॉडल) (?:के रूप में|होने के नाते)|भाषा मॉडल",
        offer=r"कोई और (?:सवाल|प्रश्न|मदद)|किसी और|बेझिझक|खुशी होगी",
        request=r"(?:इस|यह|आपके|आपका) (?:अनुरोध|कहानी|दृश्य|प्रश्न|सवाल)",
        policy=r"दिशानिर्देश|नीति|अनुचित|उचित|हानिकारक|गैरकानूनी|अवैध|नैतिक|स्पष्ट|उल्लंघन|सुरक्षा",
        preamble=r"मैं समझ",
        verdict=r"(?:अवैध|गैरकानूनी|अनैतिक|अनुचित|हानिकारक|खतरनाक) है",
        instead=r"इसके बजाय|बदले में|मैं .{0,20}मदद कर सकत",
        soft_decline=r"(?:सलाह|सिफारिश|समर्थन|प्रोत्साहन) नहीं (?:दे|कर)|ऐसा न करने की सलाह",
        contrast=r"लेकिन|परंतु|किंतु|हालांकि",
    ),
}

# Which lexicons to try for the scripts found at the start of a reply. English is always tried:
# hosts often refuse in English whatever the language of the conversation.
LATIN_LANGUAGES = ("en", "es", "pt", "fr", "de", "it", "pl", "tr", "id", "vi")
SCRIPT_LANGUAGES = {
    "latin": LATIN_LANGUAGES,
    "cyrillic": ("ru",),
    "hangul": ("ko",),
    "kana": ("ja",),
    "han": ("zh", "ja"),
    "thai": ("th",),
    "arabic": ("ar",),
    "devanagari": ("hi",),
}
# Words without which no decline, apology, self-reference or preamble of a Latin-script language can
# start: a reply whose opening lacks all of a language's words skips that language's patterns.
# Turkish folds the decline into the verb, so its word endings count too (TURKISH_DECLINE_ENDINGS).
LATIN_TRIGGERS = {
    "en": frozenset("i sorry apologies unfortunately regrettably as ai model assistant openai anthropic my unable not "
                    "decline refuse".split()),
    "es": frozenset("no me debo lamentablemente lo perdón perdona disculpa desafortunadamente lamento como soy modelo "
                    "entiendo comprendo".split()),
    "pt": frozenset("não nao me recuso infelizmente desculpe desculpa sinto lamento peço como sou modelo entendo "
                    "compreendo".split()),
    "fr": frozenset("je il ce ne désolé désolée malheureusement navré navrée toutes en modèle".split()),
    "de": frozenset("ich das kann es tut entschuldigung entschuldige entschuldigen leider bedauerlicherweise als "
                    "sprachmodell ki und".split()),
    "it": frozenset("non mi devo spiacente scusa scusami purtroppo chiedo come in modello capisco comprendo".split()),
    "pl": frozenset("nie odmawiam muszę niestety przepraszam przykro jako jestem model modelem rozumiem".split()),
    "tr": frozenset("bunu reddediyorum yardımcı mümkün üzgünüm özür maalesef ne kusura bir yapay dil anlıyorum".split()),
    "id": frozenset("tidak tak gak nggak ga menolak harus maaf mohon sayangnya saya sebagai model".split()),
    "vi": frozenset("tôi mình em không xin rất tiếc thật thành là mô".split()),
}
TURKISH_DECLINE_ENDINGS = ("amam", "emem", "ayacağım", "eyeceğim")
# Languages whose fragments are not wrapped in word boundaries.
UNBOUNDED_LANGUAGES = frozenset({"ko", "ja", "zh", "th", "ar", "hi"})

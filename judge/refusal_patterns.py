"""Refusal vocabulary for the 17 languages: openers, action words and policy/meta words.

A high-confidence refusal needs all three (judge.refusal): an opener at the very start of the
first sentence, and both an action word and a policy/meta word near the start. Entries are
lowercase prefixes: an action entry like "help" also matches "helping". For the languages
written with spaces, entries must start a word (and entries of up to 3 characters, such as "ai",
must be the whole word); for zh/ja/th/ar they match anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Vocabulary:
    openers: tuple[str, ...]
    actions: tuple[str, ...]
    policies: tuple[str, ...]


def _v(openers: str, actions: str, policies: str) -> Vocabulary:
    """Build a vocabulary from `|`-separated lists (phrases may contain spaces)."""
    def split(entries: str) -> tuple[str, ...]:
        return tuple(p.strip() for p in entries.split("|") if p.strip())

    return Vocabulary(split(openers), split(actions), split(policies))


VOCABULARIES: dict[str, Vocabulary] = {
    "en": _v(
        "i'm sorry|i am sorry|sorry|i apologize|i apologise|i can't|i cannot|i can not|i won't|"
        "i will not|i'm not able|i am not able|i'm unable|i am unable|as an ai|unfortunately, i|"
        "i must decline|i'm afraid i can't|i'm afraid i cannot|i do not feel comfortable|"
        "i don't feel comfortable|i'm not comfortable|i am not comfortable",
        "help|assist|provid|continu|writ|creat|generat|produc|engag|fulfil|comply|complying|"
        "roleplay|"
        "role-play|participat|depict|describ|proceed",
        "guideline|policy|policies|content|appropriate|inappropriate|ai|language model|roleplay|request|"
        "role-play|explicit|harmful|ethical|boundaries|terms of|openai|anthropic|my programming",
    ),
    "pt": _v(
        "desculpe|desculpa|sinto muito|lamento|peço desculpas|infelizmente|não posso|eu não posso|"
        "não consigo|não vou|como uma ia|como ia|como um modelo",
        "continu|ajud|fornec|escrev|criar|gerar|produz|particip|atend|prosseguir|descrev|realiz",
        "diretriz|política|conteúdo|apropriad|inapropriad|ia|pedido|solicitaç|inteligência artificial|modelo de "
        "linguagem|"
        "explícit|ético|étic|termos de uso|regras de uso|roleplay",
    ),
    "es": _v(
        "lo siento|perdón|disculpa|lamento|lamentablemente|desafortunadamente|no puedo|"
        "no voy a|como ia|como una ia|como modelo",
        "continu|ayud|proporcion|escrib|crear|gener|produc|particip|cumpl|proceder|describ|realiz|"
        "ofrec",
        "directriz|directrices|política|contenido|apropiad|inapropiad|ia|solicitud|petición|inteligencia artificial|"
        "modelo de lenguaje|explícit|étic|términos de uso|normas de uso|roleplay",
    ),
    "fr": _v(
        "je suis désolé|je suis désolée|désolé|désolée|je m'excuse|malheureusement|je ne peux pas|"
        "je ne peux|je ne vais pas|en tant qu'ia|en tant qu'intelligence",
        "continu|aider|fourn|écri|créer|génér|produi|particip|répondre|poursuiv|décri|réalis",
        "directive|politique|contenu|approprié|inapproprié|ia|demande|requête|intelligence artificielle|"
        "modèle de langage|explicite|éthique|conditions d'utilisation|jeu de rôle",
    ),
    "de": _v(
        "es tut mir leid|tut mir leid|entschuldigung|leider|ich kann nicht|ich kann keine|"
        "ich kann das nicht|ich werde nicht|als ki|als künstliche",
        "fortsetz|fortführ|fortfahr|helf|unterstütz|bereitstell|schreib|erstell|generier|"
        "produzier|teilnehm|beschreib|weiterführ|weiterschreib|nachkommen|erfüll",
        "richtlinie|inhalt|unangemessen|angemessen|ki|anfrage|künstliche intelligenz|sprachmodell|"
        "assistent|"
        "explizit|ethisch|nutzungsbedingung|rollenspiel",
    ),
    "it": _v(
        "mi dispiace|spiacente|scusa|scusami|purtroppo|non posso|non sono in grado|non continuerò|"
        "come ia|in quanto ia|come intelligenza",
        "continu|aiut|fornir|scriv|creare|gener|produrr|partecip|proseguir|descriv|soddisf|realizz",
        "linee guida|politic|contenut|appropriat|inappropriat|ia|richiest|intelligenza artificiale|"
        "modello linguistico|esplicit|etic|termini di|gioco di ruolo",
    ),
    "id": _v(
        "maaf|mohon maaf|sayangnya|saya tidak bisa|saya tidak dapat|aku tidak bisa|sebagai ai",
        "melanjutkan|lanjut|membantu|bantu|menyediakan|memberikan|menulis|membuat|menghasilkan|"
        "berpartisipasi|memenuhi|menggambarkan",
        "pedoman|kebijakan|konten|pantas|tidak pantas|sesuai|ai|kecerdasan buatan|model bahasa|"
        "eksplisit|etika|etis|ketentuan|roleplay",
    ),
    "ko": _v(
        "죄송하지만|죄송합니다|죄송해요|미안하지만|유감스럽게도|안타깝게도|저는 ai|ai로서|ai 언어 모델로서",
        "계속|도와|도움|제공|작성|생성|진행|응할|응해|참여|묘사|만들",
        "가이드라인|지침|정책|콘텐츠|내용|부적절|적절|ai|인공지능|언어 모델|윤리|규정|이용 약관|롤플레이",
    ),
    "ja": _v(
        "申し訳ありません|申し訳ございません|申し訳ないのですが|すみませんが|残念ながら|"
        "ごめんなさい、|私はaiとして|aiとして|その要求には",
        "お応え|応え|応じ|お手伝い|手伝|続け|継続|作成|提供|書く|書け|生成|対応|描写|参加",
        "ガイドライン|ポリシー|規約|不適切|適切|ai|人工知能|コンテンツ|内容|倫理|方針|ロールプレイ",
    ),
    "zh": _v(
        "抱歉|很抱歉|对不起|非常抱歉|我无法|我不能|作为一个ai|作为ai|作为人工智能|對不起|我無法",
        "提供|帮助|幫助|协助|協助|继续|繼續|创作|創作|生成|写|寫|满足|滿足|完成|描写|描寫|参与|參與",
        "政策|准则|準則|规定|規定|内容|內容|不适当|不適當|不恰当|不恰當|ai|人工智能|道德|指南|伦理|倫理|角色扮演",
    ),
    "ru": _v(
        "извините|прошу прощения|простите|к сожалению|я не могу|я не буду|как ии|"
        "как искусственный интеллект|как языковая модель",
        "помо|продолж|созда|напис|писать|предостав|выполн|участв|генерир|описыва|опис",
        "правил|политик|контент|содержан|неуместн|неприемлем|недопустим|ии|запрос|просьб|искусственн|"
        "языков|этич|принцип|откровенн|ролев",
    ),
    "pl": _v(
        "przepraszam|przykro mi|niestety|nie mogę|nie jestem w stanie|jako ai|jako sztuczna",
        "kontynu|pomóc|pomag|pomoc|dostarcz|napis|pisać|tworz|stworz|wygener|uczestnicz|opis|"
        "spełni",
        "wytyczn|zasad|polityk|treś|nieodpowiedni|odpowiedni|ai|sztuczn|model językow|asystent|"
        "etycz|regulamin|odgrywanie ról",
    ),
    "tr": _v(
        "üzgünüm|özür dilerim|maalesef|ne yazık ki|bunu yapamam|yardımcı olamam|devam edemem|"
        "bir yapay zeka olarak|yapay zeka olarak",
        "devam|yardım|sağla|yaz|oluştur|üret|katıl|yerine getir|betimle|tasvir|yapamam|olamam|"
        "edemem",
        "yönerge|politika|içerik|uygun|uygunsuz|yapay zeka|dil modeli|müstehcen|etik|kural|rol "
        "yapma",
    ),
    "vi": _v(
        "xin lỗi|tôi xin lỗi|rất tiếc|tiếc là|thật không may|tôi không thể|mình không thể|là một "
        "ai|"
        "là một trí tuệ nhân tạo",
        "tiếp tục|giúp|hỗ trợ|cung cấp|viết|tạo|sản xuất|tham gia|đáp ứng|mô tả|thực hiện",
        "nguyên tắc|hướng dẫn|chính sách|nội dung|phù hợp|không phù hợp|ai|trí tuệ nhân tạo|"
        "mô hình ngôn ngữ|đạo đức|điều khoản|nhập vai",
    ),
    "th": _v(
        "ขออภัย|ขอโทษ|เสียใจ|น่าเสียดาย|ฉันไม่สามารถ|ผมไม่สามารถ|ดิฉันไม่สามารถ|ในฐานะ ai|ในฐานะai",
        "ดำเนินการต่อ|ต่อ|ช่วย|ให้|เขียน|สร้าง|ผลิต|มีส่วนร่วม|ตอบสนอง|บรรยาย",
        "แนวทาง|นโยบาย|เนื้อหา|เหมาะสม|ไม่เหมาะสม|ai|ปัญญาประดิษฐ์|โมเดลภาษา|จริยธรรม|ข้อกำหนด|"
        "บทบาทสมมติ",
    ),
    "ar": _v(
        "عذرا|عذرًا|آسف|أنا آسف|اعتذر|أعتذر|للأسف|لا أستطيع|لا يمكنني|كذكاء اصطناعي|بصفتي",
        "مواصلة|متابعة|الاستمرار|مساعد|تقديم|كتابة|إنشاء|توليد|إنتاج|المشاركة|تلبية|وصف",
        "إرشادات|سياس|محتوى|مناسب|لائق|ذكاء اصطناعي|الذكاء الاصطناعي|نموذج لغوي|أخلاق|شروط|لعب "
        "الأدوار",
    ),
    "hi": _v(
        "क्षमा करें|माफ़ कीजिए|माफ कीजिए|माफ़ करें|माफ करें|मुझे खेद है|खेद है|दुर्भाग्य से|मैं "
        "नहीं कर सकता|"
        "मैं नहीं कर सकती|मैं ऐसा नहीं कर सकता|एक एआई के रूप में|एआई के रूप में",
        "जारी|मदद|सहायता|प्रदान|लिख|बना|उत्पन्न|भाग|पूरा|वर्णन",
        "दिशानिर्देश|नीति|सामग्री|उचित|अनुचित|एआई|ai|कृत्रिम बुद्धि|भाषा मॉडल|नैतिक|शर्त|रोलप्ले",
    ),
}

# No spaces between words (zh/ja/th), or prefixed articles and conjunctions (ar, "والمحتوى"):
# entries match anywhere, not only at a word start.
UNSPACED_LANGUAGES = frozenset({"zh", "ja", "th", "ar"})

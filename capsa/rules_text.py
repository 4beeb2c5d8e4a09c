"""The in-bot rules reference (``/capsa rules [topic]``), in English and Indonesian.

Every page is built for one preset: the bonus table, special values, multipliers, the
table-sweep minimum, the foul multiplier, the scoring mode and method, the room fee rate and
the surrender cost are read from the :class:`~capsa.presets.Preset` object, so the text
cannot drift from the engine. All prose goes through :mod:`capsa.i18n`.

A page fits a Discord embed: ``title``, an ``intro`` (the description) and at most
:data:`MAX_SECTIONS` ``(heading, body)`` fields, within the limits below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from capsa.cards import CapsaError
from capsa.hands import ALL_CATEGORIES
from capsa.i18n import register, t
from capsa.names import category_name, position_name, special_name
from capsa.presets import DEFAULT_PRESET, METHOD_EXTRA, PRESETS, SPECIALS, Preset
from capsa.settings import TIMEOUT_ACTIONS

TOPICS = ("overview", "hands", "setting", "scoring", "bonuses", "specials", "presets")

MAX_TITLE = 256
MAX_INTRO = 1500
MAX_HEADING = 256
MAX_BODY = 1024
MAX_SECTIONS = 10

# Rows shown in the bonus table, in the order a player reads the table.
_BONUS_POSITIONS = ("front", "middle", "back")
_STRONGEST_FIRST = tuple(reversed(ALL_CATEGORIES))  # royal flush ... high card
_FRONT_CATEGORIES = ("three_of_a_kind", "pair", "high_card")


@dataclass(frozen=True)
class RulesPage:
    title: str
    intro: str  # <= 1500 chars
    sections: tuple[tuple[str, str], ...]  # (heading <= 256, body <= 1024), at most 10


STRINGS: dict[str, tuple[str, str]] = {
    # --- frame ---------------------------------------------------------------------------
    "rules.title": ("Capsa rules · {topic} ({preset})", "Aturan Capsa · {topic} ({preset})"),
    "rules.topic.overview": ("Overview", "Gambaran umum"),
    "rules.topic.hands": ("Hand rankings", "Urutan kombinasi"),
    "rules.topic.setting": ("Setting your rows", "Menyusun kartu"),
    "rules.topic.scoring": ("Scoring", "Hitungan poin"),
    "rules.topic.bonuses": ("Bonus hands", "Barang (bonus)"),
    "rules.topic.specials": ("Special hands", "Kartu spesial"),
    "rules.topic.presets": ("Presets", "Preset aturan"),
    "rules.unknown": (
        "There is no rules topic '{topic}'. Choose one of: {topics}.",
        "Topik aturan '{topic}' tidak ada. Pilih salah satu: {topics}.",
    ),
    "rules.on": ("on", "aktif"),
    "rules.off": ("off", "mati"),
    "rules.list_sep": (", ", ", "),
    # --- overview ------------------------------------------------------------------------
    "rules.overview.intro": (
        "Capsa Susun is for 2 to 4 players. Everyone gets 13 cards and splits them into "
        "three rows: a **back** row of 5 cards, a **middle** row of 5 and a **front** row "
        "of 3. The back has to be the strongest and the front the weakest. Then each row "
        "is held up against the same row of every opponent, and points change hands "
        "between each pair of players.\nThis server plays the **{preset}** preset.",
        "Capsa Susun dimainkan 2 sampai 4 orang. Tiap pemain dapat 13 kartu lalu "
        "membaginya jadi tiga baris: **baris bawah** isi 5 kartu, **baris tengah** 5 "
        "kartu, dan **baris atas** 3 kartu. Baris bawah harus paling kuat, baris atas "
        "paling lemah. Habis itu tiap baris diadu dengan baris yang sama punya setiap "
        "lawan, dan poinnya dihitung antar setiap pasang pemain.\nServer ini pakai preset "
        "**{preset}**.",
    ),
    "rules.overview.cards.h": ("The cards", "Kartunya"),
    "rules.overview.cards.b": (
        "One 52-card deck, no jokers. With 2 or 3 players the leftover cards sit out.\n"
        "Ranks, low to high: 2 3 4 5 6 7 8 9 10 J Q K A.\n"
        "Suits, low to high: ♦ < ♣ < ♥ < ♠. {suits}",
        "Satu dek 52 kartu, tanpa joker. Kalau cuma 2 atau 3 pemain, sisa kartunya tidak "
        "dipakai.\nUrutan angka, kecil ke besar: 2 3 4 5 6 7 8 9 10 J Q K A.\n"
        "Urutan jenis, kecil ke besar: wajik ♦ < keriting ♣ < hati ♥ < sekop ♠. {suits}",
    ),
    "rules.overview.suits.used": (
        "Suits only ever break a tie between two players' rows (`/capsa rules hands`).",
        "Jenis kartu cuma dipakai buat memecah seri antara baris dua pemain "
        "(`/capsa rules hands`).",
    ),
    "rules.overview.suits.none": (
        "In this preset suits never break ties: rows of equal ranks are a push.",
        "Di preset ini jenis kartu tidak pernah memecah seri: baris dengan angka yang "
        "sama dihitung seri.",
    ),
    "rules.overview.round.h": ("How a round goes", "Jalannya satu ronde"),
    "rules.overview.round.b": (
        "1. The bot deals and sends you your 13 cards by DM.\n"
        "2. You set your three rows before the countdown ends (`/capsa rules setting`).\n"
        "3. Holding a special hand? You may declare it (`/capsa rules specials`).\n"
        "4. All hands are revealed; each row is compared with every opponent's.\n"
        "5. Points are settled between every pair of players (`/capsa rules scoring`).",
        "1. Bot membagi kartu dan mengirim 13 kartumu lewat DM.\n"
        "2. Kamu susun tiga baris sebelum hitung mundur habis (`/capsa rules setting`).\n"
        "3. Dapat kartu spesial? Boleh kamu nyatakan (`/capsa rules specials`).\n"
        "4. Semua kartu dibuka; tiap baris diadu dengan baris setiap lawan.\n"
        "5. Poin dihitung antar setiap pasang pemain (`/capsa rules scoring`).",
    ),
    "rules.overview.match.h": ("Winning a match", "Menang satu match"),
    "rules.overview.match.b": (
        "A match is a run of rounds (10 by default, 5 for a short one) with the same "
        "players and preset. Your round scores add up; the highest total wins, and equal "
        "totals share the place.",
        "Satu match terdiri dari beberapa ronde (biasanya 10, atau 5 kalau match pendek) "
        "dengan pemain dan preset yang sama. Poin tiap ronde dijumlah; total tertinggi "
        "menang, dan total yang sama berbagi posisi.",
    ),
    "rules.overview.typing.h": ("Typing cards", "Menulis kartu"),
    "rules.overview.typing.b": (
        "Wherever you type cards, write the rank and then the suit letter or symbol, in "
        "any case: `AS`, `Td`, `10h`, `9♣`, `K♦`. T and 10 both mean ten; the suit "
        "letters are S, H, C and D.",
        "Kalau mengetik kartu, tulis angkanya lalu huruf atau simbol jenisnya, huruf "
        "besar/kecil bebas: `AS`, `Td`, `10h`, `9♣`, `K♦`. T dan 10 sama-sama sepuluh; "
        "huruf jenisnya S (sekop), H (hati), C (keriting), D (wajik).",
    ),
    "rules.overview.more.h": ("More topics", "Topik lain"),
    "rules.overview.more.line": (
        "`/capsa rules {topic}`: {name}",
        "`/capsa rules {topic}`: {name}",
    ),
    # --- hands ---------------------------------------------------------------------------
    "rules.hands.intro": (
        "The back and middle rows hold five cards each and rank as below, strongest "
        "first. The front row holds only three, so fewer hands exist there.",
        "Baris bawah dan tengah masing-masing isi 5 kartu, urutannya seperti di bawah "
        "dari yang terkuat. Baris atas cuma 3 kartu, jadi kombinasinya lebih sedikit.",
    ),
    "rules.hands.five.h": ("Five-card rows (back, middle)", "Baris 5 kartu (bawah, tengah)"),
    "rules.hands.line": ("{n}. **{name}**: {note}", "{n}. **{name}**: {note}"),
    "rules.hands.note.royal_flush": (
        "10 J Q K A of one suit; ranks as a straight flush, named apart for bonuses",
        "10 J Q K A satu jenis; kekuatannya sama dengan straight flush, cuma dibedakan untuk bonus",
    ),
    "rules.hands.note.straight_flush": (
        "five in a row, all of one suit",
        "lima kartu berurutan, satu jenis semua",
    ),
    "rules.hands.note.four_of_a_kind": (
        "four cards of one rank; the higher four wins",
        "empat kartu angka sama; yang angkanya lebih tinggi menang",
    ),
    "rules.hands.note.full_house": (
        "three of one rank plus a pair; the three decide",
        "tiga kembar plus sepasang; yang menentukan tiga kembarnya",
    ),
    "rules.hands.note.flush": (
        "five of one suit; compared from the top card down",
        "lima kartu satu jenis; diadu dari kartu tertinggi ke bawah",
    ),
    "rules.hands.note.straight": (
        "five in a row; A-2-3-4-5 is the lowest, 10-J-Q-K-A the highest, and it never "
        "wraps round (Q-K-A-2-3 is no straight)",
        "lima kartu berurutan; A-2-3-4-5 paling rendah, 10-J-Q-K-A paling tinggi, dan "
        "tidak bisa muter (Q-K-A-2-3 bukan straight)",
    ),
    "rules.hands.note.three_of_a_kind": (
        "three of one rank, then the other two cards",
        "tiga kartu angka sama, lalu dua kartu sisanya",
    ),
    "rules.hands.note.two_pair": (
        "the higher pair, then the lower, then the odd card",
        "pasangan yang lebih tinggi dulu, lalu pasangan kedua, lalu kartu sisa",
    ),
    "rules.hands.note.pair": (
        "the pair, then the other three from the top",
        "pasangannya dulu, lalu tiga kartu lain dari yang tertinggi",
    ),
    "rules.hands.note.high_card": (
        "none of the above; card by card from the top",
        "tidak ada kombinasi; diadu kartu per kartu dari yang tertinggi",
    ),
    "rules.hands.front.h": ("Front row (3 cards)", "Baris atas (3 kartu)"),
    "rules.hands.front.b": (
        "Only three hands count here, strongest first:\n{lines}\nThree cards in sequence "
        "or of one suit are still just high card.",
        "Di sini cuma ada tiga kombinasi, dari yang terkuat:\n{lines}\nTiga kartu "
        "berurutan atau satu jenis tetap dihitung kartu tinggi.",
    ),
    "rules.hands.front.line": ("{n}. **{name}**", "{n}. **{name}**"),
    "rules.hands.ties.h": ("When two rows are equal", "Kalau dua baris sama kuat"),
    "rules.hands.tie.key_card": (
        "If two players' rows have exactly the same ranks, the suit of the key card "
        "decides (♠ > ♥ > ♣ > ♦). The key card is the best-suited card of the rank that "
        "matters most: the highest pair for a pair or two pair, the set for three or four "
        "of a kind and a full house, and the top card for everything else (the 5 in "
        "A-2-3-4-5). So two rows never tie.",
        "Kalau baris dua pemain angkanya persis sama, yang menentukan jenis kartu kunci "
        "(sekop ♠ > hati ♥ > keriting ♣ > wajik ♦). Kartu kunci itu kartu dengan jenis "
        "terbaik dari angka yang paling penting: pasangan tertinggi untuk sepasang atau "
        "dua pasang, kembarannya untuk tiga kembar, empat kembar dan full house, dan "
        "kartu tertinggi untuk sisanya (angka 5 di A-2-3-4-5). Jadi tidak pernah ada "
        "baris yang seri.",
    ),
    "rules.hands.tie.early": (
        "Suits come in early in this preset (♠ > ♥ > ♣ > ♦). A flush compares its suit "
        "first, then its cards. A pair or two pair compares only the rank of the "
        "(highest) pair, then the suit of that pair's best card; the other cards are not "
        "looked at. A straight compares its top rank, then the suit of its top card "
        "(the 5 in A-2-3-4-5). Every other hand compares all its ranks first, then the "
        "suit of the key card: the best card of the set, or the top card.",
        "Di preset ini jenis kartu dipakai lebih awal (sekop ♠ > hati ♥ > keriting ♣ > "
        "wajik ♦). Flush diadu jenisnya dulu, baru kartunya. Sepasang atau dua pasang "
        "cuma diadu angka pasangan (tertinggi)nya, lalu jenis kartu terbaik dari pasangan "
        "itu; kartu lainnya tidak dilihat. Straight diadu kartu puncaknya, lalu jenis "
        "kartu puncak itu (angka 5 di A-2-3-4-5). Kombinasi lain diadu semua angkanya "
        "dulu, lalu jenis kartu kuncinya: kartu terbaik dari kembarannya, atau kartu "
        "tertinggi.",
    ),
    "rules.hands.tie.none": (
        "Suits never matter in this preset. When two rows have exactly the same ranks it "
        "is a push: nobody scores that row.",
        "Di preset ini jenis kartu tidak pernah dihitung. Kalau dua baris angkanya persis "
        "sama, hasilnya seri: baris itu tidak dapat poin.",
    ),
    # --- setting -------------------------------------------------------------------------
    "rules.setting.intro": (
        "Split your 13 cards into three rows: **back** (5 cards), **middle** (5) and "
        "**front** (3). The back must be at least as strong as the middle, and the middle "
        "at least as strong as the front. Equal strength is fine.",
        "Bagi 13 kartumu jadi tiga baris: **bawah** (5 kartu), **tengah** (5) dan "
        "**atas** (3). Baris bawah minimal harus sekuat tengah, dan tengah minimal "
        "sekuat atas. Sama kuat boleh.",
    ),
    "rules.setting.order.h": ("How the order is checked", "Cara cek urutannya"),
    "rules.setting.order.b": (
        "Only ranks count for this check, never suits. The front sits on the same ladder "
        "as the five-card hands (high card, pair, three of a kind); if the hand type is "
        "the same, ranks are compared one by one over the front's three cards.\n"
        "Example: front 8♣ 8♦ A♠ under a middle of 8♠ 8♥ K Q J is too strong (its A "
        "beats the K), so the hand is fouled. Front 8♣ 8♦ K♠ under that middle is "
        "equal, which is allowed.",
        "Di sini yang dihitung cuma angka, jenis kartu tidak. Baris atas diukur dengan "
        "tangga yang sama seperti baris 5 kartu (kartu tinggi, sepasang, tiga kembar); "
        "kalau kombinasinya sama, angkanya diadu satu per satu sebanyak tiga kartu baris "
        "atas.\nContoh: atas 8♣ 8♦ A♠ dengan tengah 8♠ 8♥ K Q J itu kegedean (A-nya "
        "menang dari K), jadi salah susun. Atas 8♣ 8♦ K♠ dengan tengah yang sama itu "
        "seimbang, jadi aman.",
    ),
    "rules.setting.foul.h": ("Fouled hand (salah susun)", "Salah susun"),
    "rules.setting.foul.b": (
        "If the order is broken, the hand is fouled. {foul}",
        "Kalau urutannya salah, kartumu salah susun. {foul}",
    ),
    "rules.setting.builder.h": ("The builder", "Cara menyusun di bot"),
    "rules.setting.builder.b": (
        "The bot DMs you your 13 cards (DMs closed? Press **Show my hand** at the table). "
        "Pick 5 cards in the **Back** menu and 5 in **Middle**; the 3 left over are your "
        "front. The preview names the hand in each row and warns you when the order is "
        "fouled. **Auto-arrange** fills in a setting that you can still change, **Clear** "
        "starts over, and **Submit** locks your rows in. A fouled setting asks you to "
        "confirm before it is sent.",
        "Bot mengirim 13 kartumu lewat DM (DM tertutup? Tekan **Lihat kartuku** di meja). "
        "Pilih 5 kartu di menu **Bawah** dan 5 di **Tengah**; 3 kartu sisanya jadi baris "
        "atas. Pratinjau menunjukkan kombinasi tiap baris dan kasih peringatan kalau "
        "salah susun. **Susun otomatis** menyusunkan kartu yang masih bisa kamu ubah, "
        "**Hapus** mengulang dari awal, dan **Kirim** mengunci susunanmu. Kalau "
        "susunannya salah susun, bot minta konfirmasi dulu sebelum dikirim.",
    ),
    "rules.setting.timer.h": ("The countdown", "Hitung mundur"),
    "rules.setting.timer.b": (
        "Each round has a countdown{secs}, set per table or for the whole server. When it "
        "runs out, {action}",
        "Tiap ronde ada hitung mundur{secs}, diatur per meja atau untuk seluruh server. "
        "Kalau waktunya habis, {action}",
    ),
    "rules.setting.timer.secs": (" of {n} seconds", " {n} detik"),
    "rules.setting.timeout.auto": (
        "the bot auto-arranges every hand that has not been submitted (declaring a "
        "special when that is the better choice) and submits it.",
        "kartu yang belum dikirim disusun otomatis oleh bot (termasuk menyatakan kartu "
        "spesial kalau itu lebih untung) lalu langsung dikirim.",
    ),
    "rules.setting.timeout.foul": (
        "every hand that has not been submitted counts as fouled.",
        "kartu yang belum dikirim dianggap salah susun.",
    ),
    "rules.setting.timeout.either": (
        "a hand that has not been submitted is either auto-arranged and submitted for its "
        "player, or counted as fouled: that depends on the server's timeout setting.",
        "kartu yang belum dikirim akan disusun otomatis lalu dikirim, atau dianggap salah "
        "susun: tergantung pengaturan habis waktu di server.",
    ),
    "rules.setting.special.h": ("Special hands", "Kartu spesial"),
    "rules.setting.special.b": (
        "If your 13 cards make a special hand this preset pays, the builder shows a "
        "**Declare** button with its value and what your rows would probably earn: "
        "declare it or play your rows. See `/capsa rules specials`.",
        "Kalau 13 kartumu membentuk kartu spesial yang dibayar di preset ini, muncul "
        "tombol **Nyatakan** beserta nilainya dan perkiraan hasil kalau main baris: pilih "
        "mau dinyatakan atau main biasa. Lihat `/capsa rules specials`.",
    ),
    "rules.setting.special.none": (
        "This preset pays no special hands: always play your rows.",
        "Preset ini tidak membayar kartu spesial: selalu main per baris.",
    ),
    "rules.setting.invalid.h": ("Mistakes the bot refuses", "Kesalahan yang ditolak bot"),
    "rules.setting.invalid.b": (
        "A row with the wrong number of cards, a card you don't hold or a card used twice "
        "is not a foul: the bot refuses it, tells you what is wrong, and never scores it.",
        "Baris dengan jumlah kartu yang salah, kartu yang bukan punyamu, atau kartu yang "
        "dipakai dua kali itu bukan salah susun: bot langsung menolak, kasih tahu "
        "salahnya di mana, dan tidak menghitungnya.",
    ),
    # --- scoring -------------------------------------------------------------------------
    "rules.scoring.intro": (
        "Points are settled between every pair of players: you play each opponent "
        "separately, and your round score is the sum. What one player wins another "
        "loses, so the table always adds up to zero{fee}.\nScoring mode: **{mode}**.",
        "Poin dihitung antar setiap pasang pemain: kamu diadu dengan tiap lawan satu per "
        "satu, lalu poin rondemu adalah jumlahnya. Yang dimenangkan satu pemain pasti "
        "dibayar pemain lain, jadi total satu meja selalu nol{fee}.\nMode hitungan: "
        "**{mode}**.",
    ),
    "rules.scoring.fee_note": (
        " (except for the room fee, see below)",
        " (kecuali potongan room fee, lihat di bawah)",
    ),
    "rules.mode.multiply": (
        "multiply (a sweep multiplies the whole total)",
        "multiply (sapu melipatgandakan seluruh total)",
    ),
    "rules.mode.base": (
        "base (a sweep multiplies only the base 1 per row)",
        "base (sapu cuma melipatgandakan nilai dasar 1 per baris)",
    ),
    "rules.mode.units": (
        "units (1 per row plus royalties, method {method})",
        "unit (1 per baris plus royalti, metode {method})",
    ),
    "rules.scoring.rows.h": ("Row by row", "Per baris"),
    "rules.scoring.rows.value": (
        "Each row goes to the stronger side. A won row is worth 1, or the winner's bonus "
        "value if it is a bonus hand (`/capsa rules bonuses`). The loser of the row pays "
        "that value; a bonus hand that loses earns nothing.",
        "Tiap baris dimenangkan yang lebih kuat. Baris yang menang bernilai 1, atau "
        "nilai bonus si pemenang kalau itu barang (`/capsa rules bonuses`). Yang kalah di "
        "baris itu bayar nilai tersebut; barang yang kalah tidak dapat apa-apa.",
    ),
    "rules.scoring.rows.units": (
        "Each row goes to the stronger side and is worth 1 unit. If the winning row is a "
        "royalty hand, its royalty is added on top, for the winner only "
        "(`/capsa rules bonuses`).",
        "Tiap baris dimenangkan yang lebih kuat dan bernilai 1 unit. Kalau baris yang "
        "menang termasuk barang, royaltinya ditambahkan, cuma buat pemenang baris itu "
        "(`/capsa rules bonuses`).",
    ),
    "rules.scoring.rows.push": (
        " Rows with exactly the same ranks are a push and score 0.",
        " Baris yang angkanya persis sama dihitung seri dan bernilai 0.",
    ),
    "rules.scoring.sweep.h": ("Sweep (sapu)", "Sapu"),
    "rules.scoring.sweep.multiply": (
        "Win all three rows against one player and the whole total between you two is "
        "multiplied ×{m}, bonuses included.\nExample: you win the front with three of a "
        "kind ({ft}), the middle with a straight ({st}) and the back with a flush "
        "({fl}): {ft} + {st} + {fl} = {sum}, swept ×{m} = **{total}**.",
        "Menang di ketiga baris melawan satu pemain, seluruh total di antara kalian "
        "dikali ×{m}, bonus juga ikut.\nContoh: baris atas menang dengan tiga kembar "
        "({ft}), tengah dengan straight ({st}), bawah dengan flush ({fl}): {ft} + {st} + "
        "{fl} = {sum}, disapu ×{m} = **{total}**.",
    ),
    "rules.scoring.sweep.base": (
        "Win all three rows against one player and only the base 1 per row is "
        "multiplied ×{m}. For a bonus row, the part above 1 (value − 1) is added once, "
        "not multiplied.\nExample: you win the front with three of a kind ({ft}), the "
        "middle with a straight and the back with a flush: 3 × {m} = {b}, plus "
        "{ft} − 1 = {extra} for the trips: **{total}**.",
        "Menang di ketiga baris melawan satu pemain, yang dikali ×{m} cuma nilai dasar 1 "
        "per baris. Untuk baris barang, kelebihannya di atas 1 (nilai − 1) ditambahkan "
        "sekali saja, tidak dikali.\nContoh: baris atas menang dengan tiga kembar ({ft}), "
        "tengah dengan straight, bawah dengan flush: 3 × {m} = {b}, ditambah {ft} − 1 = "
        "{extra} dari tiga kembarnya: **{total}**.",
    ),
    "rules.scoring.sweep.units": (
        "Nothing is ever multiplied. {method}\nExample: you win the front with three of "
        "a kind (1 + {ft} royalty), the middle with a straight and the back with a flush "
        "(1 each): 3 + {ft} + {extra} = **{total}**.",
        "Tidak ada yang dikali. {method}\nContoh: baris atas menang dengan tiga kembar "
        "(1 + royalti {ft}), tengah dengan straight dan bawah dengan flush (masing-masing "
        "1): 3 + {ft} + {extra} = **{total}**.",
    ),
    "rules.method.1-6": (
        "With method 1-6 a sweep adds {x} more units, so a sweep is worth {s} plus any royalties.",
        "Dengan metode 1-6, sapu dapat tambahan {x} unit, jadi sapu bernilai {s} plus royalti.",
    ),
    "rules.method.2-4": (
        "With method 2-4 whoever wins more of the three rows gets {x} extra unit, so 2-1 "
        "pays {two} and a sweep pays {s}, plus any royalties.",
        "Dengan metode 2-4, yang menang di lebih banyak baris dapat tambahan {x} unit, "
        "jadi menang 2-1 dapat {two} dan sapu dapat {s}, plus royalti.",
    ),
    "rules.scoring.table.h": ("Sweep of the table (sapu bersih)", "Sapu bersih"),
    "rules.scoring.table.b": (
        "If you are not fouled, declared no special, and sweep every other player, with "
        "at least {n} opponents ({players}), each of those totals is ×{t} instead of "
        "×{m}.{base} A fouled opponent counts as swept by you.",
        "Kalau kamu tidak salah susun, tidak menyatakan kartu spesial, dan menyapu "
        "semua pemain lain, dengan minimal {n} lawan ({players}), semua total itu dikali "
        "×{t}, bukan ×{m}.{base} Lawan yang salah susun dihitung ikut tersapu.",
    ),
    "rules.scoring.table.players.full": (
        "so only at a full table of {p}",
        "jadi cuma di meja isi {p} orang",
    ),
    "rules.scoring.table.players.some": (
        "so at tables of {p} or more",
        "jadi di meja isi {p} orang atau lebih",
    ),
    "rules.scoring.table.base": (
        " As with a normal sweep, only the base 1 per row is multiplied.",
        " Sama seperti sapu biasa, yang dikali cuma nilai dasar 1 per baris.",
    ),
    "rules.scoring.table.none": (
        "This preset has no sweep-of-the-table bonus.",
        "Preset ini tidak punya bonus sapu bersih.",
    ),
    "rules.scoring.foul.h": ("Fouled hand (salah susun)", "Salah susun"),
    "rules.foul.multiply": (
        "A fouled hand loses all three rows to every player who is not fouled. Each of "
        "them collects their own row values (bonuses included) ×{f}{vs_table}. The "
        "fouled player earns no bonus, and two fouled players settle 0 between them.",
        "Kartu yang salah susun kalah di ketiga baris melawan semua pemain yang "
        "susunannya benar. Mereka masing-masing dapat nilai baris mereka sendiri "
        "(termasuk bonus) dikali ×{f}{vs_table}. Yang salah susun tidak dapat bonus apa "
        "pun, dan dua pemain yang sama-sama salah susun tidak saling bayar.",
    ),
    "rules.foul.base": (
        "A fouled hand loses all three rows to every player who is not fouled: the base "
        "1 per row is multiplied ×{f}{vs_table}, and the opponent's bonus surplus "
        "(value − 1) is added unmultiplied. The fouled player earns no bonus, and two "
        "fouled players settle 0 between them.",
        "Kartu yang salah susun kalah di ketiga baris melawan semua pemain yang "
        "susunannya benar: nilai dasar 1 per baris dikali ×{f}{vs_table}, dan kelebihan "
        "barang lawan (nilai − 1) ditambahkan tanpa dikali. Yang salah susun tidak dapat "
        "bonus apa pun, dan dua pemain yang sama-sama salah susun tidak saling bayar.",
    ),
    "rules.foul.units": (
        "A fouled hand counts as swept by every player who is not fouled: it pays each "
        "of them {total} units (3 rows + {x} {why}) plus their royalties. Two fouled "
        "players settle 0 between them.",
        "Kartu yang salah susun dianggap disapu oleh semua pemain yang susunannya benar: "
        "bayar {total} unit ke masing-masing (3 baris + {x} {why}) plus royalti mereka. "
        "Dua pemain yang sama-sama salah susun tidak saling bayar.",
    ),
    "rules.foul.why.1-6": ("for the sweep", "untuk sapu"),
    "rules.foul.why.2-4": ("for the majority", "untuk menang mayoritas"),
    "rules.foul.vs_table": (
        " (×{t} to a player who sweeps the table)",
        " (×{t} kalau pemain itu sapu bersih)",
    ),
    "rules.scoring.specials.h": ("Special hands", "Kartu spesial"),
    "rules.scoring.specials.b": (
        "A declared special is paid at a fixed value by every other player and is never "
        "multiplied: {list}. Details: `/capsa rules specials`.",
        "Kartu spesial yang dinyatakan dibayar dengan nilai tetap oleh semua pemain lain "
        "dan tidak pernah dikali: {list}. Detailnya: `/capsa rules specials`.",
    ),
    "rules.scoring.method.h": ("Scoring method: {method}", "Metode hitungan: {method}"),
    "rules.scoring.method.b": (
        "**1-6**: 1 per row, plus {x16} for a sweep (a sweep is {s16}).\n**2-4**: 1 per "
        "row, plus {x24} for winning more rows than the other player (2-1 pays {two}, a "
        "sweep {s24}).\nThis table uses **{method}** (a table option).",
        "**1-6**: 1 per baris, plus {x16} kalau sapu (sapu bernilai {s16}).\n**2-4**: 1 "
        "per baris, plus {x24} untuk yang menang di lebih banyak baris (2-1 dapat {two}, "
        "sapu {s24}).\nMeja ini pakai **{method}** (opsi meja).",
    ),
    "rules.scoring.fee.h": ("Room fee", "Room fee (potongan)"),
    "rules.scoring.fee.b": (
        "Optional: {rate}% is taken from each player's positive round total. While it is "
        "on, the table no longer adds up to zero. At this table: **{state}**.",
        "Opsional: {rate}% dipotong dari total ronde setiap pemain yang plus. Selama "
        "aktif, total meja tidak lagi nol. Di meja ini: **{state}**.",
    ),
    "rules.scoring.surrender.h": ("Surrender", "Menyerah"),
    "rules.scoring.surrender.b": (
        "Optional: before the reveal a player may give up the hand and pay {cost} units "
        "to each player still in. At this table: **{state}**.",
        "Opsional: sebelum kartu dibuka, pemain boleh menyerah dan bayar {cost} unit ke "
        "setiap pemain yang masih main. Di meja ini: **{state}**.",
    ),
    # --- bonuses -------------------------------------------------------------------------
    "rules.bonuses.intro.value": (
        "Some strong hands in the right row are worth more than 1 when they win it: "
        "these are the bonus hands (*barang*). The loser of the row pays the winner's "
        "value; a bonus hand that loses its row earns nothing. Any other winning row is "
        "worth 1.",
        "Beberapa kombinasi kuat di baris tertentu bernilai lebih dari 1 kalau menang: "
        "inilah *barang*. Yang kalah di baris itu bayar nilai si pemenang; barang yang "
        "kalah tidak dapat apa-apa. Baris lain yang menang bernilai 1.",
    ),
    "rules.bonuses.intro.units": (
        "Every row is worth 1 unit. Some strong hands earn a royalty (*barang*) on top, "
        "paid only to the player who wins that row and never multiplied.",
        "Tiap baris bernilai 1 unit. Beberapa kombinasi kuat dapat royalti (*barang*) "
        "tambahan, cuma buat yang menang di baris itu, dan tidak pernah dikali.",
    ),
    "rules.bonuses.row.h": ("{row} row", "Baris {row}"),
    "rules.bonuses.line.value": ("**{name}**: {value}", "**{name}**: {value}"),
    "rules.bonuses.line.units": ("**{name}**: +{value}", "**{name}**: +{value}"),
    "rules.bonuses.row.none": ("No bonus hands in this row.", "Tidak ada barang di baris ini."),
    "rules.bonuses.example.h": ("Example", "Contoh"),
    "rules.bonuses.example.value": (
        "A back four of a kind (worth {q}) that loses to a straight flush earns nothing: "
        "it pays the winner {sf}.",
        "Empat kembar di baris bawah (nilainya {q}) yang kalah dari straight flush tidak "
        "dapat apa-apa: malah bayar {sf} ke pemenangnya.",
    ),
    "rules.bonuses.example.units": (
        "A back four of a kind (royalty +{q}) that loses to a straight flush earns "
        "nothing: it pays the winner 1 + {sf} = {total}.",
        "Empat kembar di baris bawah (royalti +{q}) yang kalah dari straight flush tidak "
        "dapat apa-apa: malah bayar 1 + {sf} = {total} ke pemenangnya.",
    ),
    "rules.bonuses.sweep.h": ("Bonuses and sweeps", "Barang dan sapu"),
    "rules.bonuses.sweep.multiply": (
        "In a sweep the bonuses are multiplied along with everything else (×{m}{table}).",
        "Kalau sapu, nilai barang ikut dikali (×{m}{table}).",
    ),
    "rules.bonuses.sweep.table": (
        ", or ×{t} for a sweep of the table",
        ", atau ×{t} kalau sapu bersih",
    ),
    "rules.bonuses.sweep.base": (
        "In a sweep the bonuses are not multiplied: only the base 1 per row is (×{m}), and "
        "each bonus adds its value − 1 on top.",
        "Kalau sapu, nilai barang tidak ikut dikali: yang dikali cuma nilai dasar 1 per "
        "baris (×{m}), lalu tiap barang menambah (nilainya − 1).",
    ),
    "rules.bonuses.sweep.units": (
        "Royalties are never multiplied; they are added on top of the sweep units.",
        "Royalti tidak pernah dikali; langsung ditambahkan di atas unit sapu.",
    ),
    # --- specials ------------------------------------------------------------------------
    "rules.specials.intro": (
        "A special hand is judged on all 13 cards and listed here strongest first. It "
        "only counts if you declare it before the reveal: the builder offers it when you "
        "hold one, and you may prefer to play your rows instead (computer players pick "
        "whichever should score more).",
        "Kartu spesial dinilai dari ke-13 kartu sekaligus, urutannya di bawah dari yang "
        "terkuat. Baru dihitung kalau kamu nyatakan sebelum kartu dibuka: tombolnya muncul "
        "kalau kamu punya, dan kamu boleh pilih main biasa per baris (pemain komputer "
        "pilih yang diperkirakan dapat poin lebih banyak).",
    ),
    "rules.specials.h": ("{name}: {value} points", "{name}: {value} poin"),
    "rules.specials.cond.dragon": (
        "13 different ranks: one each of 2 up to A.",
        "13 angka berbeda: masing-masing satu dari 2 sampai A.",
    ),
    "rules.specials.cond.six_pairs": (
        "At least six pairs among your 13 cards. Four of a kind counts as two pairs, "
        "three of a kind as one.",
        "Minimal enam pasang di antara 13 kartumu. Empat kembar dihitung dua pasang, tiga "
        "kembar dihitung satu pasang.",
    ),
    "rules.specials.cond.three_straights": (
        "Back and middle are both straights (straight flushes count too) and the front "
        "is three ranks in a row. A-2-3 and Q-K-A count; K-A-2 does not.",
        "Baris bawah dan tengah sama-sama straight (straight flush juga boleh) dan baris "
        "atas tiga angka berurutan. A-2-3 dan Q-K-A sah; K-A-2 tidak.",
    ),
    "rules.specials.cond.three_flushes": (
        "Back and middle are both flushes (straight flushes count too) and the front's "
        "three cards share one suit.",
        "Baris bawah dan tengah sama-sama flush (straight flush juga boleh) dan tiga kartu "
        "baris atas satu jenis.",
    ),
    "rules.specials.pay.h": ("Who pays", "Siapa yang bayar"),
    "rules.specials.pay.b": (
        "A declared special is paid its value by every other player, whatever they set, "
        "unless that player declared a higher special; then you pay theirs instead. "
        "Special points are never multiplied, and a player with a special can neither "
        "sweep nor be swept.",
        "Kartu spesial yang dinyatakan dibayar sesuai nilainya oleh semua pemain lain, apa "
        "pun susunan mereka, kecuali pemain itu menyatakan kartu spesial yang lebih "
        "tinggi; kalau begitu kamu yang bayar nilai punya dia. Poin kartu spesial tidak "
        "pernah dikali, dan pemain dengan kartu spesial tidak bisa menyapu maupun disapu.",
    ),
    "rules.specials.same.h": ("Same special on both sides", "Kartu spesial yang sama"),
    "rules.specials.same.tie": (
        "Nobody pays: two equal specials cancel out.",
        "Tidak ada yang bayar: dua kartu spesial yang sama saling batal.",
    ),
    "rules.specials.same.compare": (
        "The better one wins: six pairs compare their pair ranks from the top; three "
        "straights and three flushes compare the back, then the middle, then the front, "
        "by rank only. Two dragons always tie.",
        "Yang lebih bagus menang: enam pasang diadu angka pasangannya dari yang "
        "tertinggi; tiga straight dan tiga flush diadu baris bawah, lalu tengah, lalu "
        "atas, cuma dari angkanya. Dua naga selalu seri.",
    ),
    "rules.specials.absent.h": (
        "Not special in this preset",
        "Bukan kartu spesial di preset ini",
    ),
    "rules.specials.absent.b": (
        "{names}: played as ordinary rows here.",
        "{names}: di sini dimainkan sebagai baris biasa.",
    ),
    "rules.specials.none.h": ("No special hands", "Tidak ada kartu spesial"),
    "rules.specials.none.b": (
        "This preset pays no special hands: every hand is played as rows.",
        "Preset ini tidak membayar kartu spesial: semua kartu dimainkan per baris.",
    ),
    # --- presets -------------------------------------------------------------------------
    "rules.presets.intro": (
        "House rules for Capsa differ from table to table, so the bot knows {count} "
        "complete rule sets (presets). This server plays **{preset}**; the default is "
        "`{default}`.",
        "Aturan Capsa beda-beda tiap tongkrongan, jadi bot punya {count} set aturan "
        "lengkap (preset). Server ini pakai **{preset}**; bawaannya `{default}`.",
    ),
    "rules.presets.h.current": ("{name} (this server)", "{name} (server ini)"),
    "rules.presets.ties": ("Ties: {text}", "Seri: {text}"),
    "rules.presets.tie.key_card": (
        "the key card's suit decides, never a tie",
        "jenis kartu kunci yang menentukan, tidak pernah seri",
    ),
    "rules.presets.tie.early": (
        "suits compared early (flush by suit first; pairs by pair rank, then suit)",
        "jenis kartu dipakai lebih awal (flush diadu jenisnya dulu; pasangan diadu "
        "angkanya, lalu jenis)",
    ),
    "rules.presets.tie.none": (
        "suits never count; equal ranks are a push",
        "jenis kartu tidak dihitung; angka sama berarti seri",
    ),
    "rules.presets.bonuses.value": ("Bonuses: {list}", "Barang: {list}"),
    "rules.presets.bonuses.units": ("Royalties: {list}", "Royalti: {list}"),
    "rules.presets.bonus_row": ("{row}: {items}", "{row}: {items}"),
    "rules.presets.sweep": ("Sweep: {text}", "Sapu: {text}"),
    "rules.presets.sweep.multiply": (
        "×{m} on the whole total",
        "×{m} untuk seluruh total",
    ),
    "rules.presets.sweep.base": (
        "×{m} on the base 1 per row, bonus surplus not multiplied",
        "×{m} untuk nilai dasar 1 per baris, kelebihan barang tidak dikali",
    ),
    "rules.presets.sweep.units": (
        "+{x} units with method {method}, nothing multiplied",
        "+{x} unit dengan metode {method}, tidak ada yang dikali",
    ),
    "rules.presets.table": (
        "Sweep of the table: ×{t}, at least {n} opponents",
        "Sapu bersih: ×{t}, minimal {n} lawan",
    ),
    "rules.presets.table.none": ("Sweep of the table: none", "Sapu bersih: tidak ada"),
    "rules.presets.foul": (
        "Fouled hand pays: ×{f}{vs_table}",
        "Salah susun bayar: ×{f}{vs_table}",
    ),
    "rules.presets.foul.units": (
        "Fouled hand pays: as swept, plus the opponent's royalties",
        "Salah susun bayar: seperti disapu, plus royalti lawan",
    ),
    "rules.presets.specials": (
        "Specials: {list}; same special on both sides: {same}",
        "Kartu spesial: {list}; spesial sama: {same}",
    ),
    "rules.presets.specials.none": ("Specials: none", "Kartu spesial: tidak ada"),
    "rules.presets.same.tie": ("nobody pays", "tidak ada yang bayar"),
    "rules.presets.same.compare": ("the better one wins", "yang lebih bagus menang"),
    "rules.presets.options": ("Table options: {list}", "Opsi meja: {list}"),
    "rules.presets.options.none": ("Table options: none", "Opsi meja: tidak ada"),
    "rules.presets.opt.method": (
        "method 1-6 or 2-4 (now {method})",
        "metode 1-6 atau 2-4 (sekarang {method})",
    ),
    "rules.presets.opt.room_fee": (
        "room fee {rate}% ({state})",
        "room fee {rate}% ({state})",
    ),
    "rules.presets.opt.surrender": (
        "surrender for {cost} units ({state})",
        "menyerah bayar {cost} unit ({state})",
    ),
}
register(STRINGS)


# --- helpers -----------------------------------------------------------------------------


def _state(flag: bool, lang: str) -> str:
    return t("rules.on" if flag else "rules.off", lang)


def _percent(rate: float) -> str:
    return f"{rate * 100:g}"


def _join(items: list[str], lang: str) -> str:
    return t("rules.list_sep", lang).join(items)


def _bonus_items(preset: Preset, position: str) -> list[tuple[str, int]]:
    """The preset's bonus (or royalty) hands for a row, strongest first, from row_values."""
    return [
        (category, preset.row_value(position, category))
        for category in _STRONGEST_FIRST
        if (position, category) in preset.row_values
    ]


def _specials_list(preset: Preset, lang: str) -> str:
    return _join(
        [f"{special_name(s, lang)} {preset.specials[s]}" for s in SPECIALS if s in preset.specials],
        lang,
    )


def _method(preset: Preset) -> str:
    return preset.method or "1-6"


def _vs_table(preset: Preset, lang: str) -> str:
    table = preset.table_sweep_multiplier
    if table is None or table == preset.foul_multiplier:
        return ""
    return t("rules.foul.vs_table", lang, t=table)


def sweep_example(preset: Preset) -> dict[str, int]:
    """The worked sweep on the scoring page, from the preset's own numbers.

    The winner takes the front with three of a kind, the middle with a straight and the
    back with a flush. ``total`` is what the loser pays (tests check it against the engine).
    """
    ft = preset.row_value("front", "three_of_a_kind")
    st = preset.row_value("middle", "straight")
    fl = preset.row_value("back", "flush")
    m = preset.sweep_multiplier
    if preset.scoring == "units":
        extra = METHOD_EXTRA[_method(preset)]
        return {
            "ft": ft,
            "st": st,
            "fl": fl,
            "m": 1,
            "extra": extra,
            "total": 3 + ft + st + fl + extra,
        }
    if preset.scoring == "base":
        surplus = (ft - 1) + (st - 1) + (fl - 1)
        return {
            "ft": ft,
            "st": st,
            "fl": fl,
            "m": m,
            "b": 3 * m,
            "extra": surplus,
            "total": 3 * m + surplus,
        }
    total = ft + st + fl
    return {"ft": ft, "st": st, "fl": fl, "m": m, "sum": total, "total": total * m}


def _foul_text(preset: Preset, lang: str) -> str:
    if preset.scoring == "units":
        method = _method(preset)
        x = METHOD_EXTRA[method]
        return t(
            "rules.foul.units", lang, total=3 + x, x=x, why=t(f"rules.foul.why.{method}", lang)
        )
    return t(
        f"rules.foul.{preset.scoring}",
        lang,
        f=preset.foul_multiplier,
        vs_table=_vs_table(preset, lang),
    )


def _method_text(method: str, lang: str) -> str:
    x = METHOD_EXTRA[method]
    return t(f"rules.method.{method}", lang, x=x, s=3 + x, two=2 - 1 + x)


# --- topics ------------------------------------------------------------------------------

Sections = list[tuple[str, str]]


def _overview(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    suits = (
        "rules.overview.suits.none"
        if preset.suit_tiebreak == "none"
        else "rules.overview.suits.used"
    )
    more = "\n".join(
        t("rules.overview.more.line", lang, topic=topic, name=t(f"rules.topic.{topic}", lang))
        for topic in TOPICS
        if topic != "overview"
    )
    return t("rules.overview.intro", lang, preset=preset.name), [
        (
            t("rules.overview.cards.h", lang),
            t("rules.overview.cards.b", lang, suits=t(suits, lang)),
        ),
        (t("rules.overview.round.h", lang), t("rules.overview.round.b", lang)),
        (t("rules.overview.match.h", lang), t("rules.overview.match.b", lang)),
        (t("rules.overview.typing.h", lang), t("rules.overview.typing.b", lang)),
        (t("rules.overview.more.h", lang), more),
    ]


def _hands(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    five = "\n".join(
        t(
            "rules.hands.line",
            lang,
            n=n,
            name=category_name(category, lang),
            note=t(f"rules.hands.note.{category}", lang),
        )
        for n, category in enumerate(_STRONGEST_FIRST, 1)
    )
    front_lines = "\n".join(
        t("rules.hands.front.line", lang, n=n, name=category_name(category, lang))
        for n, category in enumerate(_FRONT_CATEGORIES, 1)
    )
    return t("rules.hands.intro", lang), [
        (t("rules.hands.five.h", lang), five),
        (t("rules.hands.front.h", lang), t("rules.hands.front.b", lang, lines=front_lines)),
        (t("rules.hands.ties.h", lang), t(f"rules.hands.tie.{preset.suit_tiebreak}", lang)),
    ]


def _setting(
    preset: Preset,
    lang: str,
    turn_seconds: int | None = None,
    timeout_action: str | None = None,
    **_: object,
) -> tuple[str, Sections]:
    secs = t("rules.setting.timer.secs", lang, n=turn_seconds) if turn_seconds else ""
    action = t(f"rules.setting.timeout.{timeout_action or 'either'}", lang)
    special = "rules.setting.special.b" if preset.specials else "rules.setting.special.none"
    return t("rules.setting.intro", lang), [
        (t("rules.setting.order.h", lang), t("rules.setting.order.b", lang)),
        (
            t("rules.setting.foul.h", lang),
            t("rules.setting.foul.b", lang, foul=_foul_text(preset, lang)),
        ),
        (t("rules.setting.builder.h", lang), t("rules.setting.builder.b", lang)),
        (
            t("rules.setting.timer.h", lang),
            t("rules.setting.timer.b", lang, secs=secs, action=action),
        ),
        (t("rules.setting.special.h", lang), t(special, lang)),
        (t("rules.setting.invalid.h", lang), t("rules.setting.invalid.b", lang)),
    ]


def _scoring(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    method = _method(preset)
    units = preset.scoring == "units"
    mode = t(f"rules.mode.{preset.scoring}", lang, method=method)
    fee = t("rules.scoring.fee_note", lang) if preset.room_fee else ""
    intro = t("rules.scoring.intro", lang, fee=fee, mode=mode)

    rows = t("rules.scoring.rows.units" if units else "rules.scoring.rows.value", lang)
    if preset.suit_tiebreak == "none":
        rows += t("rules.scoring.rows.push", lang)
    sections: Sections = [(t("rules.scoring.rows.h", lang), rows)]

    example = sweep_example(preset)
    if units:
        sweep = t("rules.scoring.sweep.units", lang, method=_method_text(method, lang), **example)
    else:
        sweep = t(f"rules.scoring.sweep.{preset.scoring}", lang, **example)
    sections.append((t("rules.scoring.sweep.h", lang), sweep))

    if preset.table_sweep_multiplier is None:
        table = t("rules.scoring.table.none", lang)
    else:
        n = preset.table_sweep_min_opponents or 1
        players_key = "full" if n + 1 >= 4 else "some"
        table = t(
            "rules.scoring.table.b",
            lang,
            n=n,
            players=t(f"rules.scoring.table.players.{players_key}", lang, p=n + 1),
            t=preset.table_sweep_multiplier,
            m=preset.sweep_multiplier,
            base=t("rules.scoring.table.base", lang) if preset.scoring == "base" else "",
        )
    sections.append((t("rules.scoring.table.h", lang), table))
    sections.append((t("rules.scoring.foul.h", lang), _foul_text(preset, lang)))
    if preset.specials:
        sections.append(
            (
                t("rules.scoring.specials.h", lang),
                t("rules.scoring.specials.b", lang, list=_specials_list(preset, lang)),
            )
        )
    if units:
        x16, x24 = METHOD_EXTRA["1-6"], METHOD_EXTRA["2-4"]
        sections.append(
            (
                t("rules.scoring.method.h", lang, method=method),
                t(
                    "rules.scoring.method.b",
                    lang,
                    x16=x16,
                    s16=3 + x16,
                    x24=x24,
                    s24=3 + x24,
                    two=2 - 1 + x24,
                    method=method,
                ),
            )
        )
    if preset.room_fee or "room_fee" in preset.allowed_options:
        sections.append(
            (
                t("rules.scoring.fee.h", lang),
                t(
                    "rules.scoring.fee.b",
                    lang,
                    rate=_percent(preset.room_fee_rate),
                    state=_state(preset.room_fee, lang),
                ),
            )
        )
    if preset.surrender or "surrender" in preset.allowed_options:
        sections.append(
            (
                t("rules.scoring.surrender.h", lang),
                t(
                    "rules.scoring.surrender.b",
                    lang,
                    cost=preset.surrender_cost,
                    state=_state(preset.surrender, lang),
                ),
            )
        )
    return intro, sections


def _row_heading(position: str, lang: str) -> str:
    name = position_name(position, lang)
    return t("rules.bonuses.row.h", lang, row=name.lower() if lang == "id" else name)


def _bonuses(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    units = preset.scoring == "units"
    line_key = "rules.bonuses.line.units" if units else "rules.bonuses.line.value"
    sections: Sections = []
    for position in _BONUS_POSITIONS:
        items = _bonus_items(preset, position)
        body = "\n".join(
            t(line_key, lang, name=category_name(category, lang), value=value)
            for category, value in items
        ) or t("rules.bonuses.row.none", lang)
        sections.append((_row_heading(position, lang), body))

    q = preset.row_value("back", "four_of_a_kind")
    sf = preset.row_value("back", "straight_flush")
    if units:
        example = t("rules.bonuses.example.units", lang, q=q, sf=sf, total=1 + sf)
        sweep = t("rules.bonuses.sweep.units", lang)
    elif preset.scoring == "base":
        example = t("rules.bonuses.example.value", lang, q=q, sf=sf)
        sweep = t("rules.bonuses.sweep.base", lang, m=preset.sweep_multiplier)
    else:
        example = t("rules.bonuses.example.value", lang, q=q, sf=sf)
        table = preset.table_sweep_multiplier
        sweep = t(
            "rules.bonuses.sweep.multiply",
            lang,
            m=preset.sweep_multiplier,
            table=t("rules.bonuses.sweep.table", lang, t=table) if table else "",
        )
    sections.append((t("rules.bonuses.example.h", lang), example))
    sections.append((t("rules.bonuses.sweep.h", lang), sweep))
    intro = t("rules.bonuses.intro.units" if units else "rules.bonuses.intro.value", lang)
    return intro, sections


def _specials(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    sections: Sections = []
    paid = [s for s in SPECIALS if s in preset.specials]
    for special in paid:
        sections.append(
            (
                t(
                    "rules.specials.h",
                    lang,
                    name=special_name(special, lang),
                    value=preset.specials[special],
                ),
                t(f"rules.specials.cond.{special}", lang),
            )
        )
    if not paid:
        sections.append((t("rules.specials.none.h", lang), t("rules.specials.none.b", lang)))
        return t("rules.specials.intro", lang), sections
    sections.append((t("rules.specials.pay.h", lang), t("rules.specials.pay.b", lang)))
    sections.append(
        (t("rules.specials.same.h", lang), t(f"rules.specials.same.{preset.same_special}", lang))
    )
    absent = [s for s in SPECIALS if s not in preset.specials]
    if absent:
        names = _join([special_name(s, lang) for s in absent], lang)
        sections.append(
            (t("rules.specials.absent.h", lang), t("rules.specials.absent.b", lang, names=names))
        )
    return t("rules.specials.intro", lang), sections


def _preset_summary(preset: Preset, lang: str) -> str:
    units = preset.scoring == "units"
    rows = []
    for position in _BONUS_POSITIONS:
        items = _bonus_items(preset, position)
        if items:
            shown = _join(
                [f"{category_name(c, lang)} {'+' if units else ''}{v}" for c, v in items], lang
            )
            rows.append(
                t("rules.presets.bonus_row", lang, row=position_name(position, lang), items=shown)
            )
    bonus_key = "rules.presets.bonuses.units" if units else "rules.presets.bonuses.value"
    lines = [
        t("rules.presets.ties", lang, text=t(f"rules.presets.tie.{preset.suit_tiebreak}", lang)),
        t(bonus_key, lang, list=" · ".join(rows)),
    ]
    if units:
        method = _method(preset)
        sweep = t("rules.presets.sweep.units", lang, x=METHOD_EXTRA[method], method=method)
    else:
        sweep = t(f"rules.presets.sweep.{preset.scoring}", lang, m=preset.sweep_multiplier)
    lines.append(t("rules.presets.sweep", lang, text=sweep))
    if preset.table_sweep_multiplier is None:
        lines.append(t("rules.presets.table.none", lang))
    else:
        lines.append(
            t(
                "rules.presets.table",
                lang,
                t=preset.table_sweep_multiplier,
                n=preset.table_sweep_min_opponents or 1,
            )
        )
    if units:
        lines.append(t("rules.presets.foul.units", lang))
    else:
        lines.append(
            t(
                "rules.presets.foul",
                lang,
                f=preset.foul_multiplier,
                vs_table=_vs_table(preset, lang),
            )
        )
    if preset.specials:
        same = t(f"rules.presets.same.{preset.same_special}", lang)
        lines.append(
            t("rules.presets.specials", lang, list=_specials_list(preset, lang), same=same)
        )
    else:
        lines.append(t("rules.presets.specials.none", lang))
    options = []
    if "method" in preset.allowed_options:
        options.append(t("rules.presets.opt.method", lang, method=_method(preset)))
    if "room_fee" in preset.allowed_options:
        options.append(
            t(
                "rules.presets.opt.room_fee",
                lang,
                rate=_percent(preset.room_fee_rate),
                state=_state(preset.room_fee, lang),
            )
        )
    if "surrender" in preset.allowed_options:
        options.append(
            t(
                "rules.presets.opt.surrender",
                lang,
                cost=preset.surrender_cost,
                state=_state(preset.surrender, lang),
            )
        )
    if options:
        lines.append(t("rules.presets.options", lang, list=_join(options, lang)))
    else:
        lines.append(t("rules.presets.options.none", lang))
    return "\n".join(f"• {line}" for line in lines)


def _presets(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    sections: Sections = []
    for name, other in PRESETS.items():
        # The server's own preset is shown with its table options applied.
        shown = preset if name == preset.name else other
        heading = t("rules.presets.h.current", lang, name=name) if name == preset.name else name
        sections.append((heading, _preset_summary(shown, lang)))
    intro = t(
        "rules.presets.intro", lang, count=len(PRESETS), preset=preset.name, default=DEFAULT_PRESET
    )
    return intro, sections


_BUILDERS: dict[str, Callable[..., tuple[str, Sections]]] = {
    "overview": _overview,
    "hands": _hands,
    "setting": _setting,
    "scoring": _scoring,
    "bonuses": _bonuses,
    "specials": _specials,
    "presets": _presets,
}


def rules_page(
    topic: str | None,
    preset: Preset,
    lang: str = "en",
    *,
    turn_seconds: int | None = None,
    timeout_action: str | None = None,
) -> RulesPage:
    """The page for ``topic`` (``None`` or empty: overview) under ``preset``, in ``lang``.

    Optional server settings make the "setting" page exact: ``turn_seconds`` is the
    countdown length and ``timeout_action`` (``auto`` or ``foul``) what happens to a hand
    not submitted in time; without them the page explains both choices.
    An unknown topic raises :class:`CapsaError` naming it and the valid topics.
    """
    key = (topic or "overview").strip().lower()
    if key not in _BUILDERS:
        raise CapsaError(t("rules.unknown", lang, topic=topic, topics=", ".join(TOPICS)))
    if timeout_action not in (None, *TIMEOUT_ACTIONS):
        raise CapsaError(f"timeout_action must be 'auto' or 'foul', not {timeout_action!r}")
    intro, sections = _BUILDERS[key](
        preset, lang, turn_seconds=turn_seconds, timeout_action=timeout_action
    )
    title = t("rules.title", lang, topic=t(f"rules.topic.{key}", lang), preset=preset.name)
    return RulesPage(title=title, intro=intro, sections=tuple(sections))

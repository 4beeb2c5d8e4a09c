"""The bot's own words, in English and Indonesian (registered in capsa.i18n)."""

from capsa.i18n import register

register(
    {
        # command tree (names must be lowercase, no spaces)
        "cmd.capsa": (
            "Play Capsa Susun (13-card Chinese poker)",
            "Main Capsa Susun (poker 13 kartu)",
        ),
        "cmd.new": ("new", "baru"),
        "cmd.new.desc": ("Open a table in this channel", "Buka meja di channel ini"),
        "cmd.hand": ("hand", "kartu"),
        "cmd.hand.desc": (
            "Open your hand builder for the current round",
            "Buka penyusun kartumu untuk ronde ini",
        ),
        "cmd.cancel": ("cancel", "batal"),
        "cmd.cancel.desc": ("Stop the table in this channel", "Hentikan meja di channel ini"),
        "cmd.leaderboard": ("leaderboard", "peringkat"),
        "cmd.leaderboard.desc": ("This server's best players", "Pemain terbaik di server ini"),
        "cmd.stats": ("stats", "statistik"),
        "cmd.stats.desc": (
            "A player's record on this server",
            "Catatan seorang pemain di server ini",
        ),
        "cmd.rules": ("rules", "aturan"),
        "cmd.rules.desc": ("How Capsa Susun is played here", "Cara main Capsa Susun di sini"),
        "cmd.settings": ("settings", "pengaturan"),
        "cmd.settings.desc": (
            "Server defaults (Manage Server only)",
            "Pengaturan server (khusus Kelola Server)",
        ),
        "opt.seats": ("seats", "kursi"),
        "opt.seats.desc": ("Seats at the table, 2 to 4", "Jumlah kursi, 2 sampai 4"),
        "opt.rounds": ("rounds", "ronde"),
        "opt.rounds.desc": ("Rounds in the match: 5 or 10", "Jumlah ronde: 5 atau 10"),
        "opt.rules": ("rules", "aturan"),
        "opt.rules.desc": ("Rule preset", "Pilihan aturan"),
        "opt.countdown": ("countdown", "waktu"),
        "opt.countdown.desc": (
            "Seconds to set your rows, 30 to 300",
            "Detik untuk menyusun, 30 sampai 300",
        ),
        "opt.bots": ("bots", "komputer"),
        "opt.bots.desc": ("Computer players' level", "Tingkat pemain komputer"),
        "opt.sort": ("sort", "urutan"),
        "opt.sort.desc": ("Rank players by", "Urutkan pemain menurut"),
        "opt.period": ("period", "periode"),
        "opt.period.desc": ("Time window", "Rentang waktu"),
        "opt.member": ("member", "anggota"),
        "opt.member.desc": ("Whose stats (default: you)", "Statistik siapa (bawaan: kamu)"),
        "opt.topic": ("topic", "topik"),
        "opt.topic.desc": ("Which part of the rules", "Bagian aturan yang mana"),
        "opt.timeout": ("timeout", "habis_waktu"),
        "opt.timeout.desc": (
            "What happens to a player who runs out of time",
            "Apa yang terjadi pada pemain yang kehabisan waktu",
        ),
        "opt.language": ("language", "bahasa"),
        "opt.language.desc": ("Bot language for this server", "Bahasa bot untuk server ini"),
        "choice.easy": ("easy", "mudah"),
        "choice.normal": ("normal", "normal"),
        "choice.hard": ("hard", "sulit"),
        "choice.points": ("points", "poin"),
        "choice.wins": ("wins", "menang"),
        "choice.matches": ("matches", "pertandingan"),
        "choice.sweeps": ("sweeps", "sapu"),
        "choice.all": ("all time", "sepanjang waktu"),
        "choice.30d": ("last 30 days", "30 hari terakhir"),
        "choice.7d": ("last 7 days", "7 hari terakhir"),
        "choice.auto_arrange": ("auto-arrange", "susun otomatis"),
        "choice.foul": ("count as fouled", "dianggap salah susun"),
        "choice.lang_auto": (
            "follow each user's Discord language",
            "ikuti bahasa Discord tiap pengguna",
        ),
        "choice.en": ("English", "Inggris"),
        "choice.id": ("Indonesian", "Indonesia"),
        # lobby
        "lobby.title": ("Capsa Susun table", "Meja Capsa Susun"),
        "lobby.desc": (
            "Host: {host}\nRules: **{preset}** · {rounds} rounds · {countdown}s to set rows · "
            "computer players: {level}\nPress **Join** to sit down. Empty seats get computer "
            "players at the start. This lobby closes {expires} if nobody starts it.",
            "Tuan rumah: {host}\nAturan: **{preset}** · {rounds} ronde · {countdown} detik "
            "untuk menyusun · pemain komputer: {level}\nTekan **Gabung** untuk duduk. Kursi "
            "kosong diisi komputer saat mulai. Lobi ini tutup {expires} kalau belum dimulai.",
        ),
        "lobby.seats": ("Seats", "Kursi"),
        "lobby.empty": ("(empty)", "(kosong)"),
        "lobby.started": ("The match has started.", "Pertandingan sudah dimulai."),
        "lobby.cancelled": ("This table was cancelled.", "Meja ini dibatalkan."),
        "lobby.expired": (
            "This lobby closed: nobody started it within 10 minutes.",
            "Lobi ini tutup: tidak dimulai dalam 10 menit.",
        ),
        "btn.join": ("Join", "Gabung"),
        "btn.leave": ("Leave", "Keluar"),
        "btn.add_bot": ("Add computer", "Tambah komputer"),
        "btn.start": ("Start", "Mulai"),
        "btn.cancel": ("Cancel", "Batal"),
        "ans.joined": ("You sat down at seat {seat}.", "Kamu duduk di kursi {seat}."),
        "ans.left": ("You left the table.", "Kamu meninggalkan meja."),
        "ans.host_leave": (
            "You host this table: use Cancel to close it.",
            "Kamu tuan rumah meja ini: pakai Batal untuk menutupnya.",
        ),
        "ans.full": ("This table is full.", "Meja ini sudah penuh."),
        "ans.already_seated": (
            "You already sit at another table. Leave it (or finish it) first.",
            "Kamu sudah duduk di meja lain. Keluar (atau selesaikan) dulu.",
        ),
        "ans.already_here": ("You already sit at this table.", "Kamu sudah duduk di meja ini."),
        "ans.not_seated": ("You are not seated at this table.", "Kamu tidak duduk di meja ini."),
        "ans.host_only": (
            "Only the host or a member with Manage Server can do that.",
            "Hanya tuan rumah atau anggota dengan izin Kelola Server yang bisa.",
        ),
        "ans.channel_busy": (
            "This channel already has an open table. Join it, or ask the host to cancel it.",
            "Channel ini sudah punya meja terbuka. Gabung, atau minta tuan rumah membatalkannya.",
        ),
        "ans.not_lobby": (
            "This table has already started or closed.",
            "Meja ini sudah mulai atau sudah tutup.",
        ),
        "ans.stale": ("This table is no longer open.", "Meja ini sudah tidak aktif."),
        "ans.no_table": (
            "There is no open table in this channel.",
            "Tidak ada meja terbuka di channel ini.",
        ),
        "ans.cancelled": (
            "{name} cancelled the table. Completed rounds stay recorded.",
            "{name} membatalkan meja. Ronde yang sudah selesai tetap tercatat.",
        ),
        "ans.missing_perms": (
            "I can't run a table here: I need these permissions in this channel: {perms}. Ask a server admin to add them.",
            "Aku tidak bisa membuka meja di sini: aku butuh izin ini di channel ini: {perms}. Minta admin server menambahkannya.",
        ),
        "ans.opened": (
            "Your table is open. Friends press Join; you press Start when ready.",
            "Mejamu sudah dibuka. Teman-teman tekan Gabung; kamu tekan Mulai kalau sudah siap.",
        ),
        "ans.guild_only": (
            "Use this command in a server channel.",
            "Pakai perintah ini di channel server.",
        ),
        "ans.bad_option": ("{problem}", "{problem}"),
        "ans.bad_seats": ("Seats must be 2, 3 or 4.", "Kursi harus 2, 3 atau 4."),
        "ans.bad_rounds": ("Rounds must be 5 or 10.", "Ronde harus 5 atau 10."),
        "ans.bad_countdown": (
            "The countdown must be 30 to 300 seconds.",
            "Waktu harus 30 sampai 300 detik.",
        ),
        "ans.error": (
            "Something went wrong on our side. Please try again in a moment.",
            "Ada masalah di pihak kami. Coba lagi sebentar lagi.",
        ),
        "ans.cooldown": (
            "Slow down a little and try again.",
            "Pelan-pelan sedikit, lalu coba lagi.",
        ),
        # rounds
        "round.title": ("Round {k}/{n}", "Ronde {k}/{n}"),
        "round.desc": (
            "Cards are dealt. Set your rows in your DMs before the countdown ends {when}.\n"
            "DMs closed? Press **Show my hand**.",
            "Kartu sudah dibagi. Susun barismu di DM sebelum waktu habis {when}.\n"
            "DM tertutup? Tekan **Lihat kartuku**.",
        ),
        "round.done": (
            "All rows are in. Showdown below.",
            "Semua sudah menyusun. Hasil ada di bawah.",
        ),
        "round.players": ("Players", "Pemain"),
        "round.waiting": ("⏳ {name}", "⏳ {name}"),
        "round.ready": ("✅ {name}", "✅ {name}"),
        "btn.show_hand": ("Show my hand", "Lihat kartuku"),
        "round.dm_closed": (
            "{mention}, I couldn't DM you your cards. Press **Show my hand** to set your rows here.",
            "{mention}, aku tidak bisa mengirim DM kartumu. Tekan **Lihat kartuku** untuk menyusun di sini.",
        ),
        "hand.title": ("Your hand · round {k}/{n}", "Kartumu · ronde {k}/{n}"),
        "hand.where": (
            "Table in <#{channel}> · time runs out {when}",
            "Meja di <#{channel}> · waktu habis {when}",
        ),
        "hand.cards": ("Your 13 cards", "13 kartumu"),
        "hand.rows": ("Your rows", "Barismu"),
        "hand.back_ph": ("Back (5)", "Bawah (5)"),
        "hand.middle_ph": ("Middle (5)", "Tengah (5)"),
        "btn.auto": ("Auto-arrange", "Susun otomatis"),
        "btn.declare": ("Declare {special}", "Nyatakan {special}"),
        "btn.clear": ("Clear", "Hapus"),
        "btn.submit": ("Submit", "Kirim"),
        "btn.submit_foul": ("Submit fouled setting", "Tetap kirim (salah susun)"),
        "hand.special": (
            "Your cards make **{special}**, worth {value} from every player. "
            "Rows are expected to earn about {ordinary}. Press Declare to take the special.",
            "Kartumu membentuk **{special}**, bernilai {value} dari tiap pemain. "
            "Kalau main baris, perkiraan hasilnya sekitar {ordinary}. Tekan Nyatakan untuk mengambil spesialnya.",
        ),
        "hand.submitted": (
            "🔒 Locked in. The showdown will appear in <#{channel}>.",
            "🔒 Terkunci. Hasilnya akan muncul di <#{channel}>.",
        ),
        "hand.declared": ("🔒 You declared **{special}**.", "🔒 Kamu menyatakan **{special}**."),
        "hand.confirm_foul": (
            "This setting is **fouled**: you will lose every row to every player who is not "
            "fouled. Submit it anyway?",
            "Susunan ini **salah susun**: kamu kalah di semua baris melawan pemain yang tidak "
            "salah susun. Tetap kirim?",
        ),
        "hand.incomplete": (
            "Pick the back and the middle first (5 cards each).",
            "Pilih dulu baris bawah dan tengah (masing-masing 5 kartu).",
        ),
        "hand.not_yours": ("This is not your seat.", "Ini bukan kursimu."),
        "hand.round_over": ("This round is already over.", "Ronde ini sudah selesai."),
        "hand.already": (
            "You already submitted this round.",
            "Kamu sudah mengirim susunan di ronde ini.",
        ),
        "hand.none": (
            "You are not in a round right now.",
            "Kamu sedang tidak bermain di ronde mana pun.",
        ),
        "hand.no_special": (
            "Your hand holds no special that these rules pay.",
            "Kartumu tidak membentuk kartu spesial yang dibayar aturan ini.",
        ),
        "hand.thinking": ("Arranging…", "Menyusun…"),
        # showdown
        "sd.title": ("Showdown · round {k}/{n}", "Adu kartu · ronde {k}/{n}"),
        "sd.h2h": ("Head to head", "Adu per pasangan"),
        "sd.next_at": (
            "Next round starts {when}, or when the host presses Next.",
            "Ronde berikut mulai {when}, atau saat tuan rumah menekan Lanjut.",
        ),
        "btn.next": ("Next round", "Lanjut"),
        "sd.final_title": ("Match over · final standings", "Pertandingan selesai · klasemen akhir"),
        "sd.winner": ("🏆 {names} won the match!", "🏆 {names} memenangkan pertandingan!"),
        "ans.next_wait": (
            "The next round is already on its way.",
            "Ronde berikut sedang disiapkan.",
        ),
        "ans.next_started": ("Round {k} has already started.", "Ronde {k} sudah dimulai."),
        # leaderboard / stats
        "lb.title": ("Leaderboard · {sort} · {period}", "Peringkat · {sort} · {period}"),
        "lb.empty": (
            "No finished rounds yet. Open a table with /capsa new!",
            "Belum ada ronde selesai. Buka meja dengan /capsa new!",
        ),
        "lb.row": (
            "{pos}. {name}: {points} pts · {wins} wins · {matches} matches · {sweeps} sweeps",
            "{pos}. {name}: {points} poin · {wins} menang · {matches} pertandingan · {sweeps} sapu",
        ),
        "lb.page": ("Page {page}/{pages}", "Halaman {page}/{pages}"),
        "btn.prev": ("◀ Previous", "◀ Sebelumnya"),
        "btn.next_page": ("Next ▶", "Berikutnya ▶"),
        "st.title": ("Stats for {name}", "Statistik {name}"),
        "st.matches": ("Matches", "Pertandingan"),
        "st.wins": ("Wins", "Menang"),
        "st.points": ("Points", "Poin"),
        "st.ppr": ("Points per round", "Poin per ronde"),
        "st.sweeps": ("Sweeps given / taken", "Sapu memberi / kena"),
        "st.table_sweeps": ("Sweeps of the table", "Sapu bersih"),
        "st.fouls": ("Fouls", "Salah susun"),
        "st.specials": ("Specials", "Kartu spesial"),
        "st.best": ("Best hand", "Kartu terbaik"),
        "st.none": ("none yet", "belum ada"),
        "st.no_games": (
            "{name} has not finished a round on this server yet.",
            "{name} belum menyelesaikan satu ronde pun di server ini.",
        ),
        # settings
        "set.title": ("Server settings", "Pengaturan server"),
        "set.saved": ("Saved.", "Tersimpan."),
        "set.refused": (
            "Only members with the Manage Server permission can change these settings.",
            "Hanya anggota dengan izin Kelola Server yang bisa mengubah pengaturan ini.",
        ),
        "set.preset": ("Rules", "Aturan"),
        "set.rounds": ("Rounds", "Ronde"),
        "set.countdown": ("Countdown", "Waktu"),
        "set.bot_level": ("Computer level", "Tingkat komputer"),
        "set.timeout_action": ("On timeout", "Saat waktu habis"),
        "set.language": ("Language", "Bahasa"),
        "rules.footer": (
            "Rules preset: {preset} · /capsa rules topic:…",
            "Aturan: {preset} · /capsa rules topic:…",
        ),
    }
)

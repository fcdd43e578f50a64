/// The standard labels of the feeds in the languages the emulator knows: feed titles and the
/// sentences of stories. User content (titles, status texts, messages) is never translated, as
/// Connections does. `lang` takes Java (`en_IE`) and Dojo (`en-ie`) forms; the request's
/// Accept-Language is used when it is absent; anything else is English. The wording is the
/// emulator's own (unverified against Connections' resource bundles).
struct LotusLabels: Sendable {
    /// The language used: `en`, `fr`, `de` or `es`.
    let language: String

    static let supported = ["en", "fr", "de", "es"]
    static let english = LotusLabels(lang: "en", acceptLanguage: nil)
    /// The labels of every supported language, in `supported`'s order.
    static let all = supported.map { LotusLabels(lang: $0, acceptLanguage: nil) }

    /// The language's place in `supported` (and `all`).
    var index: Int { Self.supported.firstIndex(of: language) ?? 0 }

    init(lang: String?, acceptLanguage: String?) {
        func base(_ text: String) -> String? {
            let code = String(text.prefix { $0 != "_" && $0 != "-" && $0 != ";" && $0 != "," }).lowercased()
            return Self.supported.contains(code) ? code : nil
        }
        if let lang, !lang.isEmpty {
            language = base(lang) ?? "en"
        } else {
            language =
                acceptLanguage.flatMap { header in
                    header.split(separator: ",").lazy.compactMap { base(String($0.drop { $0 == " " })) }.first
                } ?? "en"
        }
    }

    /// Content-Language of the answer.
    var contentLanguage: String {
        ["en": "en-US", "fr": "fr-FR", "de": "de-DE", "es": "es-ES"][language] ?? "en-US"
    }

    /// The text of the language in use; only that one is built.
    private func pick<Text>(
        _ en: @autoclosure () -> Text, _ fr: @autoclosure () -> Text, _ de: @autoclosure () -> Text,
        _ es: @autoclosure () -> Text
    ) -> Text {
        switch language {
        case "fr": fr()
        case "de": de()
        case "es": es()
        default: en()
        }
    }

    var publicUpdates: String { pick("Public updates", "Mises à jour publiques", "Öffentliche Aktualisierungen", "Actualizaciones públicas") }
    var topStories: String { pick("Top updates", "Principales mises à jour", "Wichtigste Aktualisierungen", "Actualizaciones principales") }
    var savedStories: String { pick("Saved updates", "Mises à jour sauvegardées", "Gespeicherte Aktualisierungen", "Actualizaciones guardadas") }
    var statusUpdates: String { pick("Status updates", "Mises à jour du statut", "Statusaktualisierungen", "Actualizaciones de estado") }
    func updatesBy(_ name: String) -> String {
        pick("Updates from \(name)", "Mises à jour de \(name)", "Aktualisierungen von \(name)", "Actualizaciones de \(name)")
    }
    var blogEntries: String { pick("Latest entries", "Dernières entrées", "Neueste Einträge", "Últimas entradas") }
    var searchResults: String { pick("Search results", "Résultats de la recherche", "Suchergebnisse", "Resultados de la búsqueda") }

    // The HTML pages behind the feeds' links.
    var comments: String { pick("Comments", "Commentaires", "Kommentare", "Comentarios") }
    var noComments: String { pick("No comments yet.", "Aucun commentaire pour l'instant.", "Noch keine Kommentare.", "Todavía no hay comentarios.") }
    var entries: String { pick("Entries", "Entrées", "Einträge", "Entradas") }
    var status: String { pick("Status", "Statut", "Status", "Estado") }
    var network: String { pick("Network", "Réseau", "Netzwerk", "Red") }
    var pageNotFound: String { pick("Page not found", "Page introuvable", "Seite nicht gefunden", "Página no encontrada") }
    func by(_ name: String) -> String { pick("by \(name)", "par \(name)", "von \(name)", "por \(name)") }

    /// A story's sentence, cut where the actor, the object and the target go.
    func sentence(_ kind: StoryKind) -> SentenceTemplate {
        switch kind {
        case .blogEntry:
            pick(
                "\(.actor) created a blog entry named \(.object) in the \(.target) blog.",
                "\(.actor) a créé une entrée de blog nommée \(.object) dans le blog \(.target).",
                "\(.actor) hat einen Blogeintrag namens \(.object) im Blog \(.target) erstellt.",
                "\(.actor) ha creado una entrada de blog denominada \(.object) en el blog \(.target).")
        case .blogComment:
            pick(
                "\(.actor) commented on the \(.object) blog entry in the \(.target) blog.",
                "\(.actor) a commenté l'entrée de blog \(.object) dans le blog \(.target).",
                "\(.actor) hat den Blogeintrag \(.object) im Blog \(.target) kommentiert.",
                "\(.actor) ha comentado la entrada de blog \(.object) en el blog \(.target).")
        case .status:
            pick(
                "\(.actor) updated their status.", "\(.actor) a mis à jour son statut.",
                "\(.actor) hat den Status aktualisiert.", "\(.actor) ha actualizado su estado.")
        case .boardMessage:
            pick(
                "\(.actor) posted a message to \(.target)'s board.", "\(.actor) a publié un message sur le babillard de \(.target).",
                "\(.actor) hat eine Nachricht an der Pinnwand von \(.target) hinterlassen.",
                "\(.actor) ha publicado un mensaje en el tablón de \(.target).")
        case .other(let verb):
            switch verb {
            case "created the activity":
                pick(
                    "\(.actor) created the activity \(.object).", "\(.actor) a créé l'activité \(.object).",
                    "\(.actor) hat die Aktivität \(.object) erstellt.", "\(.actor) ha creado la actividad \(.object).")
            case "bookmarked":
                pick(
                    "\(.actor) bookmarked \(.object).", "\(.actor) a créé un signet pour \(.object).",
                    "\(.actor) hat ein Lesezeichen für \(.object) gesetzt.", "\(.actor) ha marcado \(.object).")
            case "created the community":
                pick(
                    "\(.actor) created the community \(.object).", "\(.actor) a créé la communauté \(.object).",
                    "\(.actor) hat die Community \(.object) erstellt.", "\(.actor) ha creado la comunidad \(.object).")
            case "uploaded the file":
                pick(
                    "\(.actor) uploaded the file \(.object).", "\(.actor) a téléchargé le fichier \(.object).",
                    "\(.actor) hat die Datei \(.object) hochgeladen.", "\(.actor) ha subido el archivo \(.object).")
            case "edited the wiki page":
                pick(
                    "\(.actor) edited the wiki page \(.object).", "\(.actor) a modifié la page wiki \(.object).",
                    "\(.actor) hat die Wiki-Seite \(.object) bearbeitet.", "\(.actor) ha editado la página wiki \(.object).")
            default:
                "\(.actor) \(verb) \(.object)."
            }
        }
    }
}

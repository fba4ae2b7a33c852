"""Language detection on hand-written sentences: accuracy and time per text (Lingua, offline).

Twelve sentence patterns per language (English, French, German, Spanish, Italian), each filled
with five names and places, give 300 sentences; a second set keeps only the first four words of
each (short cells, the hard case). Run: ``python -m benchmarks.bench_language`` (needs the
``documents`` extra). Prints accuracy per language and the mean time per text.
"""

from __future__ import annotations

import time

FILLS = [
    ("Anna", "Porto"),
    ("Marco", "Lyon"),
    ("Sofia", "Graz"),
    ("Luca", "Leeds"),
    ("Eva", "Bilbao"),
]
PATTERNS = {
    "en": ["{n} moved to {p} last spring with her two children.",
           "The appointment with {n} in {p} was moved to next week.",
           "{n} called the clinic in {p} to ask about the results.",
           "We met {n} at the station in {p} after the train was late.",
           "Could you send the signed form to {n} before Friday?",
           "{n} has been working at the hospital in {p} for ten years.",
           "The letter from {n} arrived in {p} three days too late.",
           "According to {n}, the pain started after the fall in {p}.",
           "{n} would like to change the address of the account.",
           "Nobody in {p} remembered seeing {n} on that evening.",
           "The nurse told {n} to come back in two weeks.",
           "{n} paid the invoice from {p} by bank transfer yesterday."],
    "fr": ["{n} a déménagé à {p} au printemps dernier avec ses deux enfants.",
           "Le rendez-vous avec {n} à {p} a été reporté à la semaine prochaine.",
           "{n} a appelé la clinique de {p} pour connaître les résultats.",
           "Nous avons retrouvé {n} à la gare de {p} après le retard du train.",
           "Pourriez-vous envoyer le formulaire signé à {n} avant vendredi ?",
           "{n} travaille à l'hôpital de {p} depuis dix ans.",
           "La lettre de {n} est arrivée à {p} avec trois jours de retard.",
           "D'après {n}, la douleur a commencé après la chute à {p}.",
           "{n} souhaite changer l'adresse du compte.",
           "Personne à {p} ne se souvient avoir vu {n} ce soir-là.",
           "L'infirmière a dit à {n} de revenir dans deux semaines.",
           "{n} a réglé hier la facture de {p} par virement."],
    "de": ["{n} ist letzten Frühling mit ihren zwei Kindern nach {p} gezogen.",
           "Der Termin mit {n} in {p} wurde auf nächste Woche verschoben.",
           "{n} hat die Klinik in {p} angerufen, um nach den Ergebnissen zu fragen.",
           "Wir haben {n} am Bahnhof in {p} getroffen, nachdem der Zug Verspätung hatte.",
           "Könnten Sie das unterschriebene Formular vor Freitag an {n} schicken?",
           "{n} arbeitet seit zehn Jahren im Krankenhaus in {p}.",
           "Der Brief von {n} kam drei Tage zu spät in {p} an.",
           "Laut {n} begannen die Schmerzen nach dem Sturz in {p}.",
           "{n} möchte die Adresse des Kontos ändern.",
           "Niemand in {p} erinnert sich, {n} an jenem Abend gesehen zu haben.",
           "Die Pflegerin sagte {n}, sie solle in zwei Wochen wiederkommen.",
           "{n} hat die Rechnung aus {p} gestern per Überweisung bezahlt."],
    "es": ["{n} se mudó a {p} la primavera pasada con sus dos hijos.",
           "La cita con {n} en {p} se ha aplazado a la semana que viene.",
           "{n} llamó a la clínica de {p} para preguntar por los resultados.",
           "Encontramos a {n} en la estación de {p} después del retraso del tren.",
           "¿Podría enviar el formulario firmado a {n} antes del viernes?",
           "{n} trabaja en el hospital de {p} desde hace diez años.",
           "La carta de {n} llegó a {p} con tres días de retraso.",
           "Según {n}, el dolor empezó después de la caída en {p}.",
           "{n} quiere cambiar la dirección de la cuenta.",
           "Nadie en {p} recuerda haber visto a {n} aquella noche.",
           "La enfermera le dijo a {n} que volviera dentro de dos semanas.",
           "{n} pagó ayer la factura de {p} por transferencia."],
    "it": ["{n} si è trasferita a {p} la primavera scorsa con i suoi due figli.",
           "L'appuntamento con {n} a {p} è stato spostato alla settimana prossima.",
           "{n} ha chiamato la clinica di {p} per chiedere i risultati.",
           "Abbiamo incontrato {n} alla stazione di {p} dopo il ritardo del treno.",
           "Potrebbe inviare il modulo firmato a {n} prima di venerdì?",
           "{n} lavora all'ospedale di {p} da dieci anni.",
           "La lettera di {n} è arrivata a {p} con tre giorni di ritardo.",
           "Secondo {n}, il dolore è iniziato dopo la caduta a {p}.",
           "{n} vorrebbe cambiare l'indirizzo del conto.",
           "Nessuno a {p} ricorda di aver visto {n} quella sera.",
           "L'infermiera ha detto a {n} di tornare tra due settimane.",
           "{n} ha pagato ieri la fattura di {p} con un bonifico."],
}  # fmt: skip


def sentences(short: bool = False) -> list[tuple[str, str]]:
    out = []
    for code, patterns in PATTERNS.items():
        for pattern in patterns:
            for name, place in FILLS:
                text = pattern.format(n=name, p=place)
                out.append((code, " ".join(text.split()[:4]) if short else text))
    return out


def measure(detect, label: str) -> None:
    for short in (False, True):
        data = sentences(short)
        started = time.perf_counter()
        found = [detect(text) for _, text in data]
        seconds = time.perf_counter() - started
        per = {}
        for (code, _), got in zip(data, found, strict=True):
            per.setdefault(code, []).append(got == code)
        acc = {code: sum(v) / len(v) for code, v in per.items()}
        total = sum(sum(v) for v in per.values()) / len(data)
        kind = "first 4 words" if short else "full sentences"
        print(
            f"{label} {kind}: {len(data)} texts, accuracy {total:.3f} {acc}, "
            f"{1000 * seconds / len(data):.2f} ms per text"
        )


def main() -> None:
    from anon_core.pii.language import detect_language

    detect_language("warm-up sentence for the detector models")
    measure(detect_language, "lingua (5 languages)")


if __name__ == "__main__":
    main()

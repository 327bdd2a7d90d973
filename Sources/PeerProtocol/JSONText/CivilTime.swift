/// A moment in UTC split into calendar fields and back, by arithmetic
/// alone (the days-to-civil and civil-to-days algorithms of the proleptic
/// Gregorian calendar), for ``JSONTextWriter/date(_:)`` and
/// ``JSONTextReader/date()``. Covers 1970 through 9999, the years a
/// four-digit ISO 8601 year holds; nil outside them.
struct CivilTime: Equatable {
    /// Four-digit year.
    var year: Int
    /// 1–12.
    var month: Int
    /// 1–31.
    var day: Int
    /// 0–23.
    var hour: Int
    /// 0–59.
    var minute: Int
    /// 0–59; the fraction is dropped, as the `.iso8601` strategy drops it.
    var second: Int

    /// The fields of `seconds` since 1970-01-01T00:00:00Z.
    init?(_ seconds: Double) {
        // 253402300800 is 10000-01-01T00:00:00Z.
        guard seconds >= 0, seconds < 253_402_300_800 else { return nil }
        let whole = Int(seconds.rounded(.down))
        let days = whole / 86_400
        let inDay = whole % 86_400
        hour = inDay / 3600
        minute = inDay % 3600 / 60
        second = inDay % 60
        // Days since 0000-03-01, in 400-year eras of 146,097 days.
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The fields as given, when they name a real second of 1970–9999
    /// (no 24:00, no leap second, no February 30th).
    init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard (1970...9999).contains(year), (1...12).contains(month), (0..<24).contains(hour),
              (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...monthDays).contains(day) else { return nil }
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// Whole seconds since 1970-01-01T00:00:00Z.
    var secondsSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }
}

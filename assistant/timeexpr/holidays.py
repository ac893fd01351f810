"""Named holidays: the phrases people use for them and the days they fall on each year.

Fixed days and the "n-th weekday of a month" holidays are simple rules; Easter and the days tied to
it come from dateutil; the lunar and lunisolar calendars (Islamic, Hindu, Hebrew, Chinese) come from
the ``holidays`` package's calendar groups, computed once per year and cached. Jewish holidays begin
at sundown, so, as Duckling does, they are dated from the eve.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from functools import cache, lru_cache

from dateutil.easter import EASTER_ORTHODOX, EASTER_WESTERN, easter
from holidays import HolidayBase
from holidays.groups import (
    ChineseCalendarHolidays,
    HebrewCalendarHolidays,
    HinduCalendarHolidays,
    IslamicHolidays,
)

__all__ = ["HOLIDAY_STARTS", "WEAK_HOLIDAY_WORDS", "holiday_spans", "match_holiday"]

DateSpan = tuple[date, date]
SpansOfYear = Callable[[int], Sequence[DateSpan]]
_DAY = timedelta(days=1)


def _days(start: date, length: int = 1) -> DateSpan:
    return start, start + length * _DAY


def _fixed(month: int, day: int) -> SpansOfYear:
    return lambda year: (_days(date(year, month, day)),)


def _nth_weekday(n: int, weekday: int, month: int) -> Callable[[int], date]:
    """The n-th ``weekday`` of ``month`` (n = -1: the last one)."""

    def day_of(year: int) -> date:
        if n > 0:
            first = date(year, month, 1)
            return first + ((weekday - first.weekday()) % 7 + 7 * (n - 1)) * _DAY
        last = date(year + month // 12, month % 12 + 1, 1) - _DAY
        return last - ((last.weekday() - weekday) % 7) * _DAY

    return day_of


def _rule(day_of: Callable[[int], date], offset: int = 0, length: int = 1) -> SpansOfYear:
    return lambda year: (_days(day_of(year) + offset * _DAY, length),)


def _easter(offset: int = 0, length: int = 1, *, orthodox: bool = False) -> SpansOfYear:
    if orthodox:
        return _rule(lambda year: easter(year, EASTER_ORTHODOX), offset, length)
    return _rule(lambda year: easter(year, EASTER_WESTERN), offset, length)


def _kings_day(year: int) -> date:
    """King's Day in the Netherlands: April 27th, or the 26th when the 27th is a Sunday."""
    day = date(year, 4, 27)
    return day - _DAY if day.weekday() == 6 else day


def _closest_weekday(month: int, day: int) -> Callable[[int], date]:
    """Boss's Day: October 16th, or the weekday nearest to it when it falls on a weekend."""

    def day_of(year: int) -> date:
        d = date(year, month, day)
        return d + {5: -1, 6: 1}.get(d.weekday(), 0) * _DAY

    return day_of


class _LunarCalendars(
    HolidayBase, IslamicHolidays, HinduCalendarHolidays, HebrewCalendarHolidays, ChineseCalendarHolidays
):
    """One year of the lunar and lunisolar holidays, named by our keys (see ``_LUNAR``)."""

    def __init__(self, year: int) -> None:
        IslamicHolidays.__init__(self, show_estimated=False)
        HinduCalendarHolidays.__init__(self)
        HebrewCalendarHolidays.__init__(self)
        ChineseCalendarHolidays.__init__(self)
        super().__init__(years=year)

    def _populate_public_holidays(self) -> None:
        for key, method in _LUNAR.items():
            getattr(self, method)(key)
        hebrew = self._hebrew_calendar
        for key, day in (
            ("yom_haatzmaut", hebrew.israel_independence_date(self._year)),
            ("tisha_bav", hebrew.tisha_bav_date(self._year)),
        ):
            if day is not None:
                self._add_hebrew_calendar_holiday(key, day)


# Our key -> the ``holidays`` group method that adds it.
_LUNAR: dict[str, str] = {
    "eid_al_fitr": "_add_eid_al_fitr_day",
    "eid_al_adha": "_add_eid_al_adha_day",
    "mawlid": "_add_mawlid_day",
    "laylat_al_qadr": "_add_laylat_al_qadr_day",
    "islamic_new_year": "_add_islamic_new_year_day",
    "ashura": "_add_ashura_day",
    "jumuatul_wida": "_add_jumuatul_wida",
    "ramadan": "_add_ramadan_beginning_day",
    "isra_miraj": "_add_isra_and_miraj_day",
    "arafah": "_add_arafah_day",
    "mid_shaban": "_add_mid_shaban_day",
    "diwali": "_add_diwali_india",
    "chhath": "_add_chhath_puja",
    "holi": "_add_holi",
    "holika_dahan": "_add_holika_dahan",
    "vasant_panchami": "_add_basant_panchami",
    "maha_shivaratri": "_add_maha_shivaratri",
    "ram_navami": "_add_ram_navami",
    "janmashtami": "_add_janmashtami",
    "ganesh_chaturthi": "_add_ganesh_chaturthi",
    "raksha_bandhan": "_add_raksha_bandhan",
    "dussehra": "_add_dussehra",
    "navaratri": "_add_sharad_navratri",
    "maha_saptami": "_add_maha_saptami",
    "maha_ashtami": "_add_maha_ashtami",
    "maha_navami": "_add_maha_navami",
    "onam": "_add_onam",
    "pongal": "_add_makar_sankranti",
    "vaisakhi": "_add_vaisakhi",
    "mahavir_jayanti": "_add_mahavir_jayanti",
    "guru_nanak_jayanti": "_add_guru_nanak_jayanti",
    "guru_gobind_singh_jayanti": "_add_guru_gobind_singh_jayanti",
    "guru_ravidas_jayanti": "_add_guru_ravidas_jayanti",
    "rabindra_jayanti": "_add_rabindranath_birthday",
    "buddha_purnima": "_add_buddha_purnima",
    "karva_chauth": "_add_karwa_chauth",
    "gudi_padwa": "_add_gudi_padwa",
    "lohri": "_add_lohri",
    "thaipusam": "_add_thaipusam",
    "dayananda_jayanti": "_add_swami_dayanand_saraswati_jayanti",
    "parsi_new_year": "_add_parsi_new_year",
    "rosh_hashanah": "_add_rosh_hashanah",
    "yom_kippur": "_add_yom_kippur",
    "sukkot": "_add_sukkot",
    "hanukkah": "_add_hanukkah",
    "purim": "_add_purim",
    "passover": "_add_passover",
    "shavuot": "_add_shavuot",
    "lag_baomer": "_add_lag_baomer",
    "chinese_new_year": "_add_chinese_new_years_day",
    "mid_autumn": "_add_mid_autumn_festival",
    "dragon_boat": "_add_dragon_boat_festival",
    "qingming": "_add_qingming_festival",
    "double_ninth": "_add_double_ninth_festival",
    "lantern_festival": "_add_daeboreum_day",
}


@lru_cache(maxsize=256)
def _lunar_year(year: int) -> dict[str, tuple[date, ...]]:
    found: dict[str, list[date]] = {}
    for day, names in _LunarCalendars(year).items():
        for name in names.split("; "):
            found.setdefault(name, []).append(day)
    return {key: tuple(sorted(days)) for key, days in found.items()}


def _lunar(key: str, offset: int = 0, length: int = 1, *, eve: bool = False) -> SpansOfYear:
    """Days of a lunar holiday, moved by ``offset`` days; ``eve`` dates a Jewish one from sundown."""
    shift = offset - (1 if eve else 0)
    return lambda year: tuple(_days(day + shift * _DAY, length) for day in _lunar_year(year).get(key, ()))


def _tu_bishvat(year: int) -> Sequence[DateSpan]:
    """Tu BiShvat (15 Shevat), from its eve: 29 days before Purim, 59 in a Hebrew leap year (Adar I)."""
    leap = (7 * (year + 3760) + 1) % 19 < 7
    return tuple(
        _days(purim - (59 if leap else 29) * _DAY - _DAY) for purim in _lunar_year(year).get("purim", ())
    )


def _ramadan(year: int) -> Sequence[DateSpan]:
    """From the first day of Ramadan to the eve of Eid al-Fitr."""
    eids = _lunar_year(year).get("eid_al_fitr", ()) + _lunar_year(year + 1).get("eid_al_fitr", ())
    spans = []
    for start in _lunar_year(year).get("ramadan", ()):
        end = next((eid for eid in eids if eid > start), start + 30 * _DAY)
        spans.append((start, end))
    return spans


_THANKSGIVING = _nth_weekday(4, 3, 11)

# (key, pattern, days). Patterns run on lower-cased text; a longer name must come before a name
# it starts with ("christmas eve" before "christmas").
_TABLE: list[tuple[str, str, SpansOfYear]] = [
    ("christmas_eve", r"(?:x-?mas|christmas)(?: day)?(?:'s)? eve", _fixed(12, 24)),
    ("orthodox_christmas", r"orthodox christmas(?: day)?", _fixed(1, 7)),
    ("christmas", r"x-?mas(?: day)?|christmas(?: day)?", _fixed(12, 25)),
    ("new_years_eve", r"new year(?:'?s'?)? eve", _fixed(12, 31)),
    ("orthodox_new_year", r"orthodox new year'?s?(?: day)?", _fixed(1, 14)),
    (
        "chinese_new_year",
        r"chinese (?:lunar )?new year'?s?(?: day)?|lunar new year'?s?(?: day)?|spring festival",
        _lunar("chinese_new_year"),
    ),
    (
        "islamic_new_year",
        r"(?:islamic|hijri|arabic) new year'?s?(?: day)?|amun jadid|muharram",
        _lunar("islamic_new_year"),
    ),
    ("parsi_new_year", r"parsi new year|jamshedi navroz", _lunar("parsi_new_year")),
    ("new_years_day", r"new year(?:'?s'?)?(?: day)?", _fixed(1, 1)),
    ("valentines", r"(?:st\.? |saint )?valentine(?:'?s'?)?(?: day)?", _fixed(2, 14)),
    ("st_patricks", r"(?:st\.?|saint) (?:patrick|paddy)'?s'?(?: day)?", _fixed(3, 17)),
    ("st_georges", r"(?:st\.?|saint) george'?s'? day|feast of saint george", _fixed(4, 23)),
    ("st_stephens", r"(?:st\.?|saint) stephen'?s'? day", _fixed(12, 26)),
    ("april_fools", r"(?:april|all) fool'?s'?(?: day)?", _fixed(4, 1)),
    ("independence_day", r"independence day|(?:the )?(?:fourth|4th) of july", _fixed(7, 4)),
    ("halloween", r"hall?owe?'?en(?: day)?", _fixed(10, 31)),
    ("all_saints", r"all saints'?(?: day)?", _fixed(11, 1)),
    ("all_souls", r"all souls'?(?: day)?", _fixed(11, 2)),
    ("veterans_day", r"veterans'? day|armistice day|remembrance day", _fixed(11, 11)),
    ("boxing_day", r"boxing day", _fixed(12, 26)),
    ("epiphany", r"epiphany|three kings'? day", _fixed(1, 6)),
    ("groundhog_day", r"groundhog'?s? day", _fixed(2, 2)),
    ("earth_day", r"earth day", _fixed(4, 22)),
    ("may_day", r"may day|international workers'? day", _fixed(5, 1)),
    ("cinco_de_mayo", r"cinco de mayo", _fixed(5, 5)),
    ("juneteenth", r"juneteenth", _fixed(6, 19)),
    ("canada_day", r"canada day", _fixed(7, 1)),
    ("bastille_day", r"bastille day", _fixed(7, 14)),
    ("assumption", r"assumption(?: of mary| day)?", _fixed(8, 15)),
    ("immaculate_conception", r"(?:feast of the )?immaculate conception", _fixed(12, 8)),
    ("guy_fawkes", r"guy fawkes(?:'? day| night)?|bonfire night", _fixed(11, 5)),
    (
        "mlk_day",
        r"(?:mlk|martin luther king'?s?,?)(?: jr\.?| junior)? day|civil rights day",
        _rule(_nth_weekday(3, 0, 1)),
    ),
    ("presidents_day", r"presidents?'?s?'? day|washington'?s birthday", _rule(_nth_weekday(3, 0, 2))),
    ("memorial_day", r"memorial day", _rule(_nth_weekday(-1, 0, 5))),
    ("labor_day", r"labou?r day", _rule(_nth_weekday(1, 0, 9))),
    ("columbus_day", r"columbus day|indigenous peoples'? day", _rule(_nth_weekday(2, 0, 10))),
    ("thanksgiving", r"thanksgiving(?: day)?", _rule(_THANKSGIVING)),
    ("black_friday", r"black frid?day", _rule(_THANKSGIVING, 1)),
    ("cyber_monday", r"cyber monday", _rule(_THANKSGIVING, 4)),
    ("mothers_day", r"mother'?s'? day", _rule(_nth_weekday(2, 6, 5))),
    ("fathers_day", r"father'?s'? day", _rule(_nth_weekday(3, 6, 6))),
    ("bosses_day", r"boss(?:'?s'?|es'?) day|boss day", _rule(_closest_weekday(10, 16))),
    ("commonwealth_day", r"commonwealth day", _rule(_nth_weekday(2, 0, 3))),
    ("kings_day", r"king'?s'? day|koningsdag", _rule(_kings_day)),
    ("world_kidney_day", r"world kidney day", _rule(_nth_weekday(2, 3, 3))),
    ("world_religion_day", r"world religion day", _rule(_nth_weekday(3, 6, 1))),
    ("world_habitat_day", r"world habitat day", _rule(_nth_weekday(1, 0, 10))),
    ("world_maritime_day", r"world maritime day", _rule(_nth_weekday(-1, 3, 9))),
    ("world_sight_day", r"world sight day", _rule(_nth_weekday(2, 3, 10))),
    ("world_leprosy_day", r"world leprosy day", _rule(_nth_weekday(-1, 6, 1))),
    ("world_philosophy_day", r"world philosophy day", _rule(_nth_weekday(3, 3, 11))),
    ("migratory_bird_day", r"world migratory bird day", _rule(_nth_weekday(2, 5, 5))),
    ("cooperatives_day", r"international day of co-?operatives", _rule(_nth_weekday(1, 5, 7))),
    (
        "road_victims_day",
        r"(?:world )?day of remembrance for road traffic victims",
        _rule(_nth_weekday(3, 6, 11)),
    ),
    # Easter and the days counted from it.
    ("orthodox_easter_monday", r"orthodox easter mon(?:day)?", _easter(1, orthodox=True)),
    ("orthodox_holy_saturday", r"orthodox holy sat(?:urday)?", _easter(-1, orthodox=True)),
    (
        "orthodox_good_friday",
        r"orthodox (?:good|great)(?: and holy)? fri(?:day)?",
        _easter(-2, orthodox=True),
    ),
    ("orthodox_palm_sunday", r"orthodox (?:palm|branch|yew) sunday", _easter(-7, orthodox=True)),
    ("orthodox_easter", r"orthodox easter(?: sun(?:day)?)?|pascha", _easter(orthodox=True)),
    (
        "clean_monday",
        r"(?:orthodox )?(?:clean|green|pure|shrove|ash) monday|monday of lent",
        _easter(-48, orthodox=True),
    ),
    ("lazarus_saturday", r"lazarus saturday", _easter(-8, orthodox=True)),
    ("great_lent", r"great (?:lent|fast)", _easter(-48, 40, orthodox=True)),
    ("easter_monday", r"easter mon(?:day)?", _easter(1)),
    ("easter", r"easter(?: sun(?:day)?)?", _easter()),
    ("good_friday", r"(?:good|great|holy) fri(?:day)?", _easter(-2)),
    ("holy_saturday", r"holy sat(?:urday)?|easter eve|black saturday", _easter(-1)),
    (
        "maundy_thursday",
        r"(?:maundy|covenant|holy|sheer) thu(?:rs?)?(?:day)?|thu(?:rsday)? of mysteries",
        _easter(-3),
    ),
    ("palm_sunday", r"(?:palm|branch|yew) sunday", _easter(-7)),
    ("ash_wednesday", r"ash wednesday", _easter(-46)),
    ("shrove_tuesday", r"shrove tuesday|pancake (?:tues)?day|mardi gras", _easter(-47)),
    (
        "ascension",
        r"ascension(?: thursday| day)?|(?:feast of the )?ascension of (?:jesus|the lord)",
        _easter(39),
    ),
    ("whit_monday", r"(?:whit|pentecost) monday|monday of the holy spirit", _easter(50)),
    ("pentecost", r"pentecost(?: sunday)?|whit ?sunday|white sunday", _easter(49)),
    ("trinity_sunday", r"trinity sunday", _easter(56)),
    ("corpus_christi", r"(?:the )?(?:feast of )?corpus christi", _easter(60)),
    ("lent", r"lent", _easter(-46, 46)),
    # Islamic calendar.
    ("eid_al_fitr", r"e[ie]d(?: |-)?(?:al|ul|el)(?: |-)?fitr|ramadan eid", _lunar("eid_al_fitr")),
    (
        "eid_al_adha",
        r"e?[ie]d(?: |-)?(?:al|ul|el|u)(?: |-)?(?:adha|azha)|bakr(?:a|i)?(?: |-)?e?id|sacrifice feast|"
        r"feast of (?:the )?sacrifice|qurbani eid",
        _lunar("eid_al_adha"),
    ),
    (
        "mawlid",
        r"mawlid(?: al-?nab(?:awi|i)(?: al-sharif)?)?|mevli[dt]|milad(?: un-?nabi)?|"
        r"(?:the )?prophet'?s birthday|birth(?:day)? of (?:the )?prophet(?: muhammad)?",
        _lunar("mawlid"),
    ),
    (
        "laylat_al_qadr",
        r"lay?lat[ -]?al[ -]?[qk]adr|night of (?:power|destiny|measures|value|decree)|shab-?e-?qadr",
        _lunar("laylat_al_qadr"),
    ),
    ("ashura", r"(?:the )?day of ashura|ashura", _lunar("ashura")),
    ("jumuatul_wida", r"jumu'?atul[ -]wida'?a?|jamat[ -]ul[ -]vida", _lunar("jumuatul_wida")),
    ("ramadan", r"rama[dt]h?an|ramzaa?n", _ramadan),
    (
        "isra_miraj",
        r"isra (?:and|&) mi'?raj|(?:the )?night journey|(?:the )?prophet'?s ascension|ascension to heaven",
        _lunar("isra_miraj"),
    ),
    ("arafah", r"(?:the )?day of arafah?|arafat day", _lunar("arafah")),
    ("mid_shaban", r"mid-?sha'?ban|shab-?e-?barat", _lunar("mid_shaban")),
    # Hindu and Sikh calendars.
    ("dhanteras", r"dhanteras|dhanatrayodashi|dhanvantari trayodashi", _lunar("diwali", -2)),
    (
        "naraka_chaturdashi",
        r"naraka? (?:nivaran )?chaturdashi|(?:kali|roop) chaudas|chh?oti diwali",
        _lunar("diwali", -1),
    ),
    ("diwali", r"diwali|deepavali|divali|lakshmi puja", _lunar("diwali")),
    ("govardhan_puja", r"govardhan puja|annakut|annakoot", _lunar("diwali", 1)),
    ("bhai_dooj", r"bhai(?:ya)? d(?:u|oo)j|bhau-?beej|bhai (?:tika|phonta)", _lunar("diwali", 2)),
    ("chhath", r"chhath(?:i| parv| puja)?|dala (?:chhath|puja)|surya shashthi", _lunar("chhath")),
    ("holika_dahan", r"holika dahan|kamudu pyre|chh?oti holi", _lunar("holika_dahan")),
    ("holi", r"(?:rangwali )?holi|dhul(?:andi|eti)|phagwah", _lunar("holi")),
    ("vasant_panchami", r"[bv]asant panchami|saraswati puja", _lunar("vasant_panchami")),
    ("maha_shivaratri", r"maha ?shivar[ae]tri|shivaratri", _lunar("maha_shivaratri")),
    ("ram_navami", r"ram(?:a)? navami", _lunar("ram_navami")),
    ("janmashtami", r"(?:krishna )?janmashtami|gokulashtami", _lunar("janmashtami")),
    ("ganesh_chaturthi", r"ganesh(?:a)? chaturthi|vinayak(?:a)? chaturthi", _lunar("ganesh_chaturthi")),
    ("raksha_bandhan", r"raksha ?bandhan|rakhi", _lunar("raksha_bandhan")),
    ("maha_saptami", r"maha saptami", _lunar("maha_saptami")),
    ("durga_ashtami", r"(?:durga|maha) ?ashtami", _lunar("maha_ashtami")),
    ("maha_navami", r"maha navami", _lunar("maha_navami")),
    ("dussehra", r"dasara|duss(?:eh|he)ra|vijayadashami", _lunar("dussehra")),
    ("navaratri", r"durga puja|durgotsava|nava?rath?ri", _lunar("navaratri", 0, 9)),
    ("onam", r"(?:thiru ?v?)?onam", _lunar("onam")),
    ("boghi", r"bog(?:h)?i(?: pandigai)?", _lunar("pongal", -1)),
    ("mattu_pongal", r"maa?ttu pongal", _lunar("pongal", 1)),
    ("kaanum_pongal", r"(?:kaanum|kanni) pongal", _lunar("pongal", 2)),
    ("pongal", r"(?:thai )?pongal(?: pandigai)?|(?:makara? |magha )?sankranth?i|maghi", _lunar("pongal")),
    ("vaisakhi", r"[bv]ais(?:h)?akhi|vasakhi|vaisakhadi|mesadi", _lunar("vaisakhi")),
    ("mahavir_jayanti", r"mahavir(?:a)? jayanti", _lunar("mahavir_jayanti")),
    ("guru_nanak_jayanti", r"guru nanak(?:'s)? (?:jayanti|birthday|gurpurab)", _lunar("guru_nanak_jayanti")),
    (
        "guru_gobind_singh_jayanti",
        r"guru go[bv]ind singh(?:'s)? (?:jayanti|birthday)",
        _lunar("guru_gobind_singh_jayanti"),
    ),
    ("guru_ravidas_jayanti", r"guru ravidass?(?:'s)? (?:jayanti|birthday)", _lunar("guru_ravidas_jayanti")),
    ("rabindra_jayanti", r"rabindra(?:nath)? jayanti", _lunar("rabindra_jayanti")),
    (
        "buddha_purnima",
        r"buddha (?:purnima|jayanti|day)|v[ae]isak(?:ha)?|vesak(?: day)?",
        _lunar("buddha_purnima"),
    ),
    ("karva_chauth", r"kar[vw]a ?cha?uth", _lunar("karva_chauth")),
    ("gudi_padwa", r"gudi padwa|ugadi|yugadi", _lunar("gudi_padwa")),
    ("lohri", r"lohri", _lunar("lohri")),
    ("thaipusam", r"thaipusam", _lunar("thaipusam")),
    (
        "dayananda_jayanti",
        r"(?:(?:maharishi|swami) )?dayanand(?:a)? (?:saraswati )?jayanti",
        _lunar("dayananda_jayanti"),
    ),
    # Hebrew calendar, from the eve.
    ("rosh_hashanah", r"rosh hashann?ah?|yom teruah", _lunar("rosh_hashanah", 0, 3, eve=True)),
    ("yom_kippur", r"yom kippur", _lunar("yom_kippur", eve=True)),
    ("shemini_atzeret", r"shemini atzeret", _lunar("sukkot", 7, eve=True)),
    ("simchat_torah", r"simc?hat torah", _lunar("sukkot", 8, eve=True)),
    (
        "sukkot",
        r"sukkot|succos|sukkos|succot|feast of (?:booths|tabernacles|the ingathering)",
        _lunar("sukkot", 0, 9, eve=True),
    ),
    ("hanukkah", r"c?hann?ukk?ah?|chanukah", _lunar("hanukkah", 0, 8, eve=True)),
    ("shushan_purim", r"shushan purim", _lunar("purim", 1, eve=True)),
    ("purim", r"purim", _lunar("purim", eve=True)),
    ("yom_hashoah", r"yom hashoah|holocaust (?:remembrance )?day", _lunar("passover", 12, eve=True)),
    ("passover", r"passover|pesa[ck]?h", _lunar("passover", 0, 9, eve=True)),
    ("shavuot", r"shavu'?oth?|shavuos|feast of weeks", _lunar("shavuot", 0, 3, eve=True)),
    ("lag_baomer", r"lag b[a']omer", _lunar("lag_baomer", eve=True)),
    ("tisha_bav", r"tisha b'?av", _lunar("tisha_bav", eve=True)),
    ("tu_bishvat", r"tu b[i']?sh?vat", _tu_bishvat),
    ("yom_haatzmaut", r"yom ha'?atzmaut", _lunar("yom_haatzmaut", eve=True)),
    # Chinese calendar.
    ("mid_autumn", r"mid-?autumn(?: festival)?|moon festival", _lunar("mid_autumn")),
    ("dragon_boat", r"dragon boat(?: festival)?|duanwu(?: festival)?", _lunar("dragon_boat")),
    ("qingming", r"qingming(?: festival)?|tomb-?sweeping day", _lunar("qingming")),
    ("double_ninth", r"double ninth(?: festival)?|chongyang(?: festival)?", _lunar("double_ninth")),
    ("lantern_festival", r"lantern festival", _lunar("lantern_festival")),
]

# Days the United Nations and others observe on a fixed date.
_OBSERVANCES: dict[str, tuple[int, int]] = {
    "world vegan day": (11, 1),
    "world vegetarian day": (10, 1),
    "international women's day": (3, 8),
    "world environment day": (6, 5),
    "world water day": (3, 22),
    "world aids day": (12, 1),
    "human rights day": (12, 10),
    "world health day": (4, 7),
    "international day of yoga": (6, 21),
    "international yoga day": (6, 21),
    "international day of peace": (9, 21),
    "world peace day": (9, 21),
    "world book day": (4, 23),
    "world teachers' day": (10, 5),
    "world food day": (10, 16),
    "world mental health day": (10, 10),
    "united nations day": (10, 24),
    "international men's day": (11, 19),
    "world refugee day": (6, 20),
    "world population day": (7, 11),
    "international youth day": (8, 12),
    "world press freedom day": (5, 3),
    "international literacy day": (9, 8),
    "world heart day": (9, 29),
    "world diabetes day": (11, 14),
    "world cancer day": (2, 4),
    "world radio day": (2, 13),
    "international mother language day": (2, 21),
    "world wildlife day": (3, 3),
    "world poetry day": (3, 21),
    "world down syndrome day": (3, 21),
    "world autism awareness day": (4, 2),
    "world malaria day": (4, 25),
    "world no tobacco day": (5, 31),
    "world oceans day": (6, 8),
    "world blood donor day": (6, 14),
    "nelson mandela day": (7, 18),
    "world humanitarian day": (8, 19),
    "world tourism day": (9, 27),
    "international day of older persons": (10, 1),
    "world kindness day": (11, 13),
    "world toilet day": (11, 19),
    "world soil day": (12, 5),
    "international volunteer day": (12, 5),
    "international migrants day": (12, 18),
    "world wetlands day": (2, 2),
    "zero discrimination day": (3, 1),
    "world day of social justice": (2, 20),
    "international day of happiness": (3, 20),
    "world meteorological day": (3, 23),
    "world tuberculosis day": (3, 24),
    "international jazz day": (4, 30),
    "international nurses day": (5, 12),
    "international day of families": (5, 15),
    "world bee day": (5, 20),
    "international day of friendship": (7, 30),
    "world hepatitis day": (7, 28),
    "international day of charity": (9, 5),
    "world suicide prevention day": (9, 10),
    "international day of democracy": (9, 15),
    "international day of the girl child": (10, 11),
    "world post day": (10, 9),
    "world cities day": (10, 31),
    "world television day": (11, 21),
    "international day for tolerance": (11, 16),
    "universal children's day": (11, 20),
    "world children's day": (11, 20),
    "world pneumonia day": (11, 12),
    "world prematurity day": (11, 17),
    "world braille day": (1, 4),
    "world day of the sick": (2, 11),
    "world intellectual property day": (4, 26),
    "world information society day": (5, 17),
    "international day of the world's indigenous people": (8, 9),
    "international human solidarity day": (12, 20),
    "international mountain day": (12, 11),
    "international day of persons with disabilities": (12, 3),
    "international anti-corruption day": (12, 9),
    "world stroke day": (10, 29),
    "world rabies day": (9, 28),
    "international day against nuclear tests": (8, 29),
    "world elder abuse awareness day": (6, 15),
    "international widows' day": (6, 23),
    "world day against child labour": (6, 12),
    "world tuna day": (5, 2),
    "international customs day": (1, 26),
    "world sexual health day": (9, 4),
    "africa day": (5, 25),
    "arabic language day": (12, 18),
    "english language day": (4, 23),
    "chinese language day": (4, 20),
    "international day of forests": (3, 21),
    "international asteroid day": (6, 30),
    "world youth skills day": (7, 15),
    "international day of the seafarer": (6, 25),
    "day of the seafarer": (6, 25),
    "global day of parents": (6, 1),
    "international dog day": (8, 26),
    "pi day": (3, 14),
}


def _observance_pattern(name: str) -> str:
    return re.escape(name).replace("'", "'?").replace(r"\ ", " ")


for _name, (_month, _day) in _OBSERVANCES.items():
    _TABLE.append((re.sub(r"\W+", "_", _name).strip("_"), _observance_pattern(_name), _fixed(_month, _day)))

# Holiday names that are also common words or names ("I lent him", "my assumption"): they only
# count with a year or "this/next/last".
WEAK_HOLIDAY_WORDS = frozenset(
    {"lent", "holi", "onam", "rakhi", "boghi", "bogi", "assumption", "ascension", "epiphany"}
)

_SPANS: dict[str, SpansOfYear] = {key: spans for key, _, spans in _TABLE}


def _expand(pattern: str) -> list[str]:
    """Every string a holiday pattern matches. The patterns use only literals, ``[...]`` classes,
    ``(?:...|...)`` groups and ``?``, so the set is finite (a few hundred strings at most)."""

    def alternatives(i: int) -> tuple[list[str], int]:
        found, i = sequence(i)
        while i < len(pattern) and pattern[i] == "|":
            more, i = sequence(i + 1)
            found += more
        return found, i

    def sequence(i: int) -> tuple[list[str], int]:
        found = [""]
        while i < len(pattern) and pattern[i] not in "|)":
            options, i = atom(i)
            if i < len(pattern) and pattern[i] == "?":
                options, i = [*options, ""], i + 1
            found = [head + tail for head in found for tail in options]
        return found, i

    def atom(i: int) -> tuple[list[str], int]:
        if pattern.startswith("(?:", i):
            options, i = alternatives(i + 3)
            return options, i + 1
        if pattern[i] == "[":
            end = pattern.index("]", i)
            return list(pattern[i + 1 : end]), end + 1
        if pattern[i] == "\\":
            return [pattern[i + 1]], i + 2
        return [pattern[i]], i + 1

    return alternatives(0)[0]


_FIRST_TOKEN = re.compile(r"\d+(?:st|nd|rd|th)?|[a-z]+(?:'[a-z]+)*'?")


def _first_tokens() -> dict[str, list[int]]:
    """For each word a holiday name can start with, the table rows that can start with it."""
    rows: dict[str, list[int]] = {}
    for row, (_, pattern, _) in enumerate(_TABLE):
        for text in _expand(pattern):
            m = _FIRST_TOKEN.match(text)
            if m and row not in rows.setdefault(m.group(), []):
                rows[m.group()].append(row)
    return rows


_ROWS_BY_FIRST_TOKEN = _first_tokens()
HOLIDAY_STARTS = frozenset(_ROWS_BY_FIRST_TOKEN)
"""The words (and ordinals) a holiday's name can start with: a text with none of them names no holiday."""


@cache
def _row_pattern(row: int) -> re.Pattern[str]:
    """One holiday's pattern, compiled on first use; spaces match any run of spaces."""
    pattern = _TABLE[row][1].replace(" ?", r"\s*").replace(" ", r"\s+")
    return re.compile(rf"(?:{pattern})(?![a-z])")


def match_holiday(text: str, start: int, first_token: str) -> tuple[str, int] | None:
    """The holiday named at ``text[start:]`` whose name begins with ``first_token``: (key, end), or None.

    Trying every holiday name at every word would cost far more than the rest of the parse, so only the
    few names that can start with this token are tried, and the longest match wins ("ascension to
    heaven" is Isra and Mi'raj, not Ascension Day).
    """
    best: tuple[str, int] | None = None
    for row in _ROWS_BY_FIRST_TOKEN.get(first_token, ()):
        m = _row_pattern(row).match(text, start)
        if m is not None and (best is None or m.end() > best[1]):
            best = _TABLE[row][0], m.end()
    return best


@lru_cache(maxsize=4096)
def holiday_spans(key: str, year: int) -> tuple[DateSpan, ...]:
    """The days (as [start, end) date pairs) the holiday ``key`` covers that start in ``year``."""
    if not 1900 <= year <= 2100:
        return ()
    return tuple(_SPANS[key](year))

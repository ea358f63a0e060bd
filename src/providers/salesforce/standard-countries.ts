/**
 * The list of an org without State and Country/Territory Picklists: ISO 3166-1 codes (named by
 * `Intl.DisplayNames`), and ISO 3166-2 states (unprefixed) where Salesforce ships states.
 */

export const ISO_COUNTRY_CODES: readonly string[] = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ
BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU
ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ
LA LB LC LI LK LR LS LT LU LV LY
MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ
NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA
RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ
TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ
VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
`
  .trim()
  .split(/\s+/);

/** `CODE:Name` pairs, `|`-separated: compact to read and to check against ISO 3166-2. */
const pairs = (text: string): ReadonlyArray<{ code: string; label: string }> =>
  text
    .trim()
    .split(/\s*\|\s*/)
    .map((pair) => {
      const [code = '', label = ''] = pair.split(':');
      return { code, label };
    });

export const ISO_STATES: Readonly<Record<string, ReadonlyArray<{ code: string; label: string }>>> = {
  US: pairs(`
    AL:Alabama | AK:Alaska | AZ:Arizona | AR:Arkansas | CA:California | CO:Colorado |
    CT:Connecticut | DE:Delaware | DC:District of Columbia | FL:Florida | GA:Georgia | HI:Hawaii |
    ID:Idaho | IL:Illinois | IN:Indiana | IA:Iowa | KS:Kansas | KY:Kentucky | LA:Louisiana |
    ME:Maine | MD:Maryland | MA:Massachusetts | MI:Michigan | MN:Minnesota | MS:Mississippi |
    MO:Missouri | MT:Montana | NE:Nebraska | NV:Nevada | NH:New Hampshire | NJ:New Jersey |
    NM:New Mexico | NY:New York | NC:North Carolina | ND:North Dakota | OH:Ohio | OK:Oklahoma |
    OR:Oregon | PA:Pennsylvania | RI:Rhode Island | SC:South Carolina | SD:South Dakota |
    TN:Tennessee | TX:Texas | UT:Utah | VT:Vermont | VA:Virginia | WA:Washington |
    WV:West Virginia | WI:Wisconsin | WY:Wyoming`),
  CA: pairs(`
    AB:Alberta | BC:British Columbia | MB:Manitoba | NB:New Brunswick |
    NL:Newfoundland and Labrador | NT:Northwest Territories | NS:Nova Scotia | NU:Nunavut |
    ON:Ontario | PE:Prince Edward Island | QC:Quebec | SK:Saskatchewan | YT:Yukon`),
  AU: pairs(`
    ACT:Australian Capital Territory | NSW:New South Wales | NT:Northern Territory |
    QLD:Queensland | SA:South Australia | TAS:Tasmania | VIC:Victoria | WA:Western Australia`),
  BR: pairs(`
    AC:Acre | AL:Alagoas | AP:Amapá | AM:Amazonas | BA:Bahia | CE:Ceará | DF:Distrito Federal |
    ES:Espírito Santo | GO:Goiás | MA:Maranhão | MT:Mato Grosso | MS:Mato Grosso do Sul |
    MG:Minas Gerais | PA:Pará | PB:Paraíba | PR:Paraná | PE:Pernambuco | PI:Piauí |
    RJ:Rio de Janeiro | RN:Rio Grande do Norte | RS:Rio Grande do Sul | RO:Rondônia | RR:Roraima |
    SC:Santa Catarina | SP:São Paulo | SE:Sergipe | TO:Tocantins`),
};

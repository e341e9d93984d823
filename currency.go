package afftrack

import (
	"strings"
	"sync"
	"time"
)

// CurrencyName returns the English name of the ISO 4217 currency whose
// code is code, in any letter case: "AUD" and "aud" both give "Australian
// Dollar". The names are ISO's with each word capitalised, as the
// interface's reference shows them, so a few are terser than everyday
// speech ("Yen", "Pound Sterling").
//
// Every code of ISO 4217's list of current currencies and funds is known
// except XTS and XXX, which stand for no currency. A withdrawn code, such
// as HRK since Croatia took the euro, is not.
func CurrencyName(code string) (string, bool) {
	if len(code) != 3 {
		return "", false
	}
	var buf [3]byte
	for i := 0; i < 3; i++ {
		c := code[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	name, ok := currencyTable()[string(buf[:])]
	return name, ok
}

// CurrencyCodes returns every code CurrencyName knows, in alphabetical
// order.
func CurrencyCodes() []string {
	codes := make([]string, 0, 180)
	for line := range strings.Lines(currencyData) {
		if len(line) > 4 {
			codes = append(codes, line[:3])
		}
	}
	return codes
}

// currencyTable is built on first use so programs that never name a
// currency pay nothing at start-up.
var currencyTable = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 180)
	for line := range strings.Lines(currencyData) {
		line = strings.TrimSuffix(line, "\n")
		if line != "" {
			m[line[:3]] = line[4:]
		}
	}
	return m
})

// currencyData holds one currency a line as "code name", in code order.
// Small joining words stay lower case ("Trinidad and Tobago Dollar") and
// ISO's abbreviations keep their letters ("UAE Dirham", "WIR Euro").
const currencyData = `
AED UAE Dirham
AFN Afghani
ALL Lek
AMD Armenian Dram
AOA Kwanza
ARS Argentine Peso
AUD Australian Dollar
AWG Aruban Florin
AZN Azerbaijan Manat
BAM Convertible Mark
BBD Barbados Dollar
BDT Taka
BGN Bulgarian Lev
BHD Bahraini Dinar
BIF Burundi Franc
BMD Bermudian Dollar
BND Brunei Dollar
BOB Boliviano
BOV Mvdol
BRL Brazilian Real
BSD Bahamian Dollar
BTN Ngultrum
BWP Pula
BYN Belarusian Ruble
BZD Belize Dollar
CAD Canadian Dollar
CDF Congolese Franc
CHE WIR Euro
CHF Swiss Franc
CHW WIR Franc
CLF Unidad de Fomento
CLP Chilean Peso
CNY Yuan Renminbi
COP Colombian Peso
COU Unidad de Valor Real
CRC Costa Rican Colon
CUC Peso Convertible
CUP Cuban Peso
CVE Cabo Verde Escudo
CZK Czech Koruna
DJF Djibouti Franc
DKK Danish Krone
DOP Dominican Peso
DZD Algerian Dinar
EGP Egyptian Pound
ERN Nakfa
ETB Ethiopian Birr
EUR Euro
FJD Fiji Dollar
FKP Falkland Islands Pound
GBP Pound Sterling
GEL Lari
GHS Ghana Cedi
GIP Gibraltar Pound
GMD Dalasi
GNF Guinean Franc
GTQ Quetzal
GYD Guyana Dollar
HKD Hong Kong Dollar
HNL Lempira
HTG Gourde
HUF Forint
IDR Rupiah
ILS New Israeli Sheqel
INR Indian Rupee
IQD Iraqi Dinar
IRR Iranian Rial
ISK Iceland Krona
JMD Jamaican Dollar
JOD Jordanian Dinar
JPY Yen
KES Kenyan Shilling
KGS Som
KHR Riel
KMF Comorian Franc
KPW North Korean Won
KRW Won
KWD Kuwaiti Dinar
KYD Cayman Islands Dollar
KZT Tenge
LAK Lao Kip
LBP Lebanese Pound
LKR Sri Lanka Rupee
LRD Liberian Dollar
LSL Loti
LYD Libyan Dinar
MAD Moroccan Dirham
MDL Moldovan Leu
MGA Malagasy Ariary
MKD Denar
MMK Kyat
MNT Tugrik
MOP Pataca
MRU Ouguiya
MUR Mauritius Rupee
MVR Rufiyaa
MWK Malawi Kwacha
MXN Mexican Peso
MXV Mexican Unidad de Inversion (UDI)
MYR Malaysian Ringgit
MZN Mozambique Metical
NAD Namibia Dollar
NGN Naira
NIO Cordoba Oro
NOK Norwegian Krone
NPR Nepalese Rupee
NZD New Zealand Dollar
OMR Rial Omani
PAB Balboa
PEN Sol
PGK Kina
PHP Philippine Peso
PKR Pakistan Rupee
PLN Zloty
PYG Guarani
QAR Qatari Rial
RON Romanian Leu
RSD Serbian Dinar
RUB Russian Ruble
RWF Rwanda Franc
SAR Saudi Riyal
SBD Solomon Islands Dollar
SCR Seychelles Rupee
SDG Sudanese Pound
SEK Swedish Krona
SGD Singapore Dollar
SHP Saint Helena Pound
SLE Leone
SOS Somali Shilling
SRD Surinam Dollar
SSP South Sudanese Pound
STN Dobra
SVC El Salvador Colon
SYP Syrian Pound
SZL Lilangeni
THB Baht
TJS Somoni
TMT Turkmenistan New Manat
TND Tunisian Dinar
TOP Pa’anga
TRY Turkish Lira
TTD Trinidad and Tobago Dollar
TWD New Taiwan Dollar
TZS Tanzanian Shilling
UAH Hryvnia
UGX Uganda Shilling
USD US Dollar
USN US Dollar (Next Day)
UYI Uruguay Peso en Unidades Indexadas (UI)
UYU Peso Uruguayo
UYW Unidad Previsional
UZS Uzbekistan Sum
VED Bolívar Soberano
VES Bolívar Soberano
VND Dong
VUV Vatu
WST Tala
XAF CFA Franc BEAC
XAG Silver
XAU Gold
XBA Bond Markets Unit European Composite Unit (EURCO)
XBB Bond Markets Unit European Monetary Unit (E.M.U.-6)
XBC Bond Markets Unit European Unit of Account 9 (E.U.A.-9)
XBD Bond Markets Unit European Unit of Account 17 (E.U.A.-17)
XCD East Caribbean Dollar
XCG Caribbean Guilder
XDR SDR (Special Drawing Right)
XOF CFA Franc BCEAO
XPD Palladium
XPF CFP Franc
XPT Platinum
XSU Sucre
XUA ADB Unit of Account
YER Yemeni Rial
ZAR Rand
ZMW Zambian Kwacha
ZWG Zimbabwe Gold
`

// Rate is an exchange rate in units of 10^-8: how many units of the
// network's currency one unit of another currency is worth. 1.5234 is
// Rate(152340000). Eight digits keep a rate between a strong and a weak
// currency (one yen in pounds is about 0.005) exact to several places.
type Rate int64

// RateScale is the fractional digits of a Rate, in input and in output.
const RateScale = 8

// String formats r with exactly eight fractional digits.
func (r Rate) String() string { return string(AppendFixed(nil, int64(r), RateScale)) }

// ParseRate parses a JSON number with at most eight fractional digits. A
// rate of zero or less is refused, as converting with it would wipe out or
// flip the sign of every amount.
func ParseRate(s string) (Rate, error) {
	v, err := ParseDecimal(s, RateScale)
	if err != nil {
		return 0, err
	}
	if v <= 0 {
		return 0, Errorf(EINVALID, "%q is not a rate; a rate must be greater than zero", s)
	}
	return Rate(v), nil
}

// CurrencyRate is the rate of the currency Code on a day. A rate dated
// Date (a day at midnight, wall clock) applies to conversions made on or
// after that day until a later rate of the same currency takes over, so
// one rate a day or one a month both work, and a day with no rate of its
// own uses the last one before it.
type CurrencyRate struct {
	Code string
	Date time.Time
	Rate Rate
}

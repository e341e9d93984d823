package sqlstore

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
)

// The statements of GenerateTransactions. Every trait of a transaction is
// drawn from one of nine multiplicative congruential streams (the Park and
// Miller generators modulo 2^31-1, whose products stay inside SQLite's
// 64-bit integers), each value split into a few decimal draws. The
// recursive sequence carries the streams and the day being filled, so
// each value is computed once per row; the items' statement and the
// transactions' run the same sequence and so agree on every draw.

// mcgModulus is the streams' modulus, 2^31-1.
const mcgModulus = 2147483647

// mcgMultipliers are full-period multipliers modulo 2^31-1 (Fishman and
// Moore), one per stream a to i.
var mcgMultipliers = [9]int64{48271, 69621, 16807, 630360016, 742938285, 950706376, 1226874159, 62089911, 1343714438}

const dayMillis = 86_400_000

// genQuery builds the statements for one Bulk.
type genQuery struct {
	b *generate.Bulk
	// itemBase is the last rowid of transaction_items before the load:
	// the items of a transaction take the rowids after those of the
	// transactions before it, so its totals are one range of rows.
	itemBase int64
}

// seeds returns the streams' first values, from the Bulk's seed by
// SplitMix64, each in [1, 2^31-1).
func (q genQuery) seeds() [9]int64 {
	var s [9]int64
	x := q.b.Seed
	for i := range s {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		s[i] = int64(1 + z%(mcgModulus-1))
	}
	return s
}

// sequence is the recursive sequence s: row n (0 to Transactions) holds
// the n-th values of the streams named (letters a to i, c among them),
// and in ic the number of items of the transactions before transaction
// n-1, whose draws row n's are. With days, it holds the state of the day
// being filled too, and in row n >= 1, in ct, ppay and pmon, the creation
// time, payment date and validation month of transaction n-1 (computed
// from row n-1's day). The items' statement needs few of these: a
// narrower row is a cheaper one.
func (q genQuery) sequence(streams string, days bool) string {
	seeds := q.seeds()
	var cols, first, next []string
	cols, first, next = append(cols, "n", "ic"), append(first, "0", "0"),
		append(next, "s.n + 1", "CASE WHEN s.n = 0 THEN 0 ELSE s.ic + "+q.itemCount()+" END")
	if days {
		cols = append(cols, "k", "lft", "day_ms", "cnt", "pay_ms", "vmonth")
		first = append(first, "0", "cnt", "day_ms", "cnt", "pay_ms", "vmonth")
		next = append(next, "CASE WHEN s.lft > 1 THEN s.k ELSE s.k + 1 END")
		for _, col := range []string{"lft", "day_ms", "cnt", "pay_ms", "vmonth"} {
			same := "s." + col
			if col == "lft" {
				same = "s.lft - 1"
				col = "cnt"
			}
			next = append(next, fmt.Sprintf("CASE WHEN s.lft > 1 THEN %s ELSE (SELECT y.%s FROM temp.gen_day y WHERE y.k = s.k + 1) END", same, col))
		}
	}
	for _, c := range streams {
		i := c - 'a'
		cols, first = append(cols, string(c)), append(first, strconv.FormatInt(seeds[i], 10))
		next = append(next, fmt.Sprintf("s.%c * %d %% %d", c, mcgMultipliers[i], mcgModulus))
	}
	if days {
		cols, first = append(cols, "ct", "ppay", "pmon"), append(first, "0", "0", "0")
		next = append(next, "s.day_ms + "+timeOfDay("(((s.cnt - s.lft) + 0.5) / s.cnt)"), "s.pay_ms", "s.vmonth")
	}
	from := ""
	if days {
		from = " FROM temp.gen_day WHERE k = 0"
	}
	return fmt.Sprintf("WITH RECURSIVE s(%s) AS (\n  SELECT %s%s\n  UNION ALL\n  SELECT %s\n  FROM s WHERE s.n < %d\n)\n",
		strings.Join(cols, ", "), strings.Join(first, ", "), from, strings.Join(next, ",\n    "), q.b.Transactions)
}

// sumBits is the width of each of the item sums packed into one integer,
// so that one look at a transaction's items gives its three totals: a
// cart of at most 5 lines of at most 3 products costs well under 2^21
// cents.
const sumBits = 21

// eveningDepth shapes a day: the density of times peaks at about 20:15,
// (1+eveningDepth)/(1-eveningDepth) times its trough before dawn.
const eveningDepth = 0.75

// timeOfDay returns the milliseconds after midnight of the transaction at
// fraction frac (in (0, 1)) of its day's count. The map from the
// fraction to the time of day increases, so the times ascend with the
// ids; its slope, 1 - eveningDepth*cos(2*pi*(frac - 3/4)), is smallest
// in the evening, where the times crowd.
func timeOfDay(frac string) string {
	return fmt.Sprintf("CAST((%[1]s - %[2]g * (sin(%[3]g * %[1]s - %[4]g) - 1)) * %[5]d AS INTEGER)",
		frac, eveningDepth/(2*math.Pi), 2*math.Pi, 1.5*math.Pi, dayMillis)
}

// pick returns an expression choosing among cs by their weights with the
// draw x (taken modulo the total weight), the value of each given by val.
func pick(x string, cs []generate.Choice, val func(generate.Choice) string) string {
	total := 0
	for _, c := range cs {
		total += c.Weight
	}
	var w strings.Builder
	w.WriteString("CASE")
	cum := 0
	for i, c := range cs {
		cum += c.Weight
		if i == len(cs)-1 {
			fmt.Fprintf(&w, " ELSE %s END", val(c))
			break
		}
		fmt.Fprintf(&w, " WHEN (%s) %% %d < %d THEN %s", x, total, cum, val(c))
	}
	return w.String()
}

func value(c generate.Choice) string { return strconv.FormatInt(c.Value, 10) }
func text(c generate.Choice) string  { return quote(c.Text) }
func text2(c generate.Choice) string { return quote(c.Text2) }

// quote returns s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pickText returns an expression choosing one of cs evenly with draw x.
func pickText(x string, cs []generate.Choice) string {
	even := make([]generate.Choice, len(cs))
	for i, c := range cs {
		even[i] = generate.Choice{Text: c.Text, Weight: 1}
	}
	return pick(x, even, text)
}

// joins are the merchant and affiliate of the transaction of row s: the
// merchant by the share its rank's range covers, the affiliate one of its
// Joined members, the first ones most often.
func (q genQuery) joins(from string) string {
	return q.merchantJoin(from) + fmt.Sprintf(`CROSS JOIN temp.gen_affiliate af ON af.id = (m.member_off + CAST(m.members * (s.b / %[1]d.0) * (s.b / %[1]d.0) * (s.b / %[1]d.0) AS INTEGER) * m.member_step) %% %[2]d + 1
`, mcgModulus, q.b.Affiliates)
}

// merchantJoin is the merchant of the transaction of row s, from the
// rows from.
func (q genQuery) merchantJoin(from string) string {
	return `FROM ` + from + ` s
CROSS JOIN temp.gen_merchant m ON m.hi = (SELECT x.hi FROM temp.gen_merchant x WHERE x.hi > s.a ORDER BY x.hi LIMIT 1)
`
}

// itemCount is the number of lines of the transaction's cart.
func (q genQuery) itemCount() string { return pick("s.c", q.b.ItemCounts, value) }

// items is the statement inserting every transaction's items. A line's
// product and quantity come from stream f mixed with its position.
func (q genQuery) items() string {
	v := fmt.Sprintf("((s.f + p.p * 104729) * 48271 %% %d)", mcgModulus)
	qty := pick(v, q.b.Quantities, value)
	line := fmt.Sprintf("(pr.price * %s)", qty)
	var w strings.Builder
	w.WriteString(q.sequence("acf", false))
	fmt.Fprintf(&w, `INSERT INTO transaction_items (rowid, transaction_id, position, sku, quantity, reported_sale_value, sale_value,
  commission, name, brand, category, cart_item_reference)
SELECT %[5]d + s.ic + p.p, %[1]d + s.n - 1, p.p, pr.sku, %[2]s, (%[3]s * m.per10k + 5000) / 10000, %[3]s, (%[3]s * m.rate_bp + 5000) / 10000,
  pr.name, pr.brand, pr.category,
  CASE WHEN s.c / 100 %% 100 < %[4]d THEN m.prefix || (%[1]d + s.n - 1) || '-' || p.p END
`, q.b.FirstID, qty, line, q.b.CartRefPercent, q.itemBase)
	w.WriteString(q.merchantJoin("s"))
	fmt.Fprintf(&w, `CROSS JOIN temp.gen_pos p ON p.p <= %[1]s
CROSS JOIN temp.gen_product pr ON pr.k = m.product_off + CAST(m.product_n * (%[2]s / %[3]d.0) * (%[2]s / %[3]d.0) AS INTEGER)
WHERE s.n >= 1
`, q.itemCount(), v, mcgModulus)
	return w.String()
}

// transactions is the statement inserting the transactions, their totals
// the sums of their items (or, without items, a lead's value).
func (q genQuery) transactions() string {
	b := q.b
	lock, validate := b.LockAfter.Milliseconds(), b.ValidateAfter.Milliseconds()
	end := b.End.UnixMilli()
	mask := int64(1)<<sumBits - 1
	lead := fmt.Sprintf("CAST(exp(%g + (s.c / 10000 %% 10000) / 10000.0 * %g) AS INTEGER)", math.Log(1000), math.Log(30))
	sale := fmt.Sprintf("coalesce(s.ps >> %d, %s)", 2*sumBits, lead)
	reported := fmt.Sprintf("coalesce((s.ps >> %d) & %d, (%s * m.per10k + 5000) / 10000)", sumBits, mask, lead)
	commission := fmt.Sprintf("coalesce(s.ps & %d, (%s * m.rate_bp + 5000) / 10000)", mask, lead)

	// Computed once per row in a subquery that is not flattened (LIMIT):
	// the columns use them many times.
	voided := "(s.ct + 3600000 + (s.g / 100 % 20000000) * 172)"
	status := fmt.Sprintf(`(CASE WHEN s.g %% 100 < %d AND %s < %d THEN %d WHEN %d <= s.ct + %d THEN %d
    WHEN %d <= s.ct + %d THEN %d WHEN s.ppay >= %d THEN %d ELSE %d END)`,
		b.VoidPercent, voided, end, afftrack.Status2Void, end, lock, afftrack.Status2Pending,
		end, validate, afftrack.Status2Locked, end, afftrack.Status2Approved, afftrack.Status2Paid)
	amendedAt := "(s.ct + 3600000 + (s.h / 1000000) * 800000)"
	from := fmt.Sprintf(`(SELECT s.*, %[1]s AS vd, %[2]s AS st, %[3]s AS am,
    %[2]s <> %[4]d AND s.h / 100 %% 100 < %[5]d AND %[3]s < %[6]d AS amd, %[11]s AS cty,
    (SELECT sum(i.sale_value * %[7]d + i.reported_sale_value * %[8]d + i.commission) FROM transaction_items i
      WHERE i.rowid BETWEEN %[9]d + s.ic + 1 AND %[9]d + s.ic + %[10]s) AS ps
  FROM s WHERE s.n >= 1 LIMIT -1)`,
		voided, status, amendedAt, afftrack.Status2Void, b.AmendedPercent, end,
		int64(1)<<(2*sumBits), int64(1)<<sumBits, q.itemBase, q.itemCount(), pick("s.e", b.CreativeTypes, value))
	modified := fmt.Sprintf("(CASE s.st WHEN %d THEN s.vd WHEN %d THEN s.ct WHEN %d THEN s.ct + %d WHEN %d THEN s.ct + %d ELSE s.ppay END)",
		afftrack.Status2Void, afftrack.Status2Pending, afftrack.Status2Locked, lock, afftrack.Status2Approved, validate)
	status, amendedAt, amended := "s.st", "s.am", "s.amd"

	// Creatives: k draws which text link, banner, coupon or promotion.
	ctype := "s.cty"
	k := "(s.e / 1000 % 1000)"
	coupon := func(x string) string {
		return fmt.Sprintf("CASE WHEN %s %% 2 = 0 THEN m.coupon1 ELSE m.coupon2 END", x)
	}
	banner := func(col string) string {
		return fmt.Sprintf("(SELECT bn.%s FROM temp.gen_banner bn WHERE bn.k = m.banner_off + %s %% m.banner_n)", col, k)
	}
	creativeID := fmt.Sprintf("CASE %s WHEN %d THEN m.textlink + %s %% %d WHEN %d THEN %s END",
		ctype, afftrack.CreativeTypeTextLink, k, len(b.TextLinks), afftrack.CreativeTypeBanner, banner("id"))
	creativeName := fmt.Sprintf("CASE %s WHEN %d THEN %s WHEN %d THEN %s WHEN %d THEN %s WHEN %d THEN %s WHEN %d THEN 'Product feed' END",
		ctype, afftrack.CreativeTypeTextLink, pickText(k, b.TextLinks), afftrack.CreativeTypeBanner, banner("name"),
		afftrack.CreativeTypeCoupon, coupon(k), afftrack.CreativeTypePromotion, pickText(k, b.Promotions),
		afftrack.CreativeTypeDataFeed)
	couponCode := fmt.Sprintf("CASE WHEN %s = %d THEN %s WHEN s.e / 1000000 %% 100 < %d THEN %s END",
		ctype, afftrack.CreativeTypeCoupon, coupon(k), b.ExtraCouponPercent, coupon("(s.e / 100000000)"))

	var w strings.Builder
	w.WriteString(q.sequence("abcdefghi", true))
	w.WriteString(`INSERT INTO transactions (id, merchant_id, date_created, date_modified, consumption_date, validation_date,
  affiliate_id, traffic_type, traffic_source, creative_type, creative_id, creative_name, customer_country_code,
  customer_country_name, customer_ip_address, customer_type, order_id, additional_notes, tracking_method, sale_value,
  commission, override_fee, reported_currency_code, reported_currency_name, reported_sale_value,
  traffic_source_approved, status2, invoice_id, void_reason, amended_reason, coupon_code, placement_id, placement_name)
SELECT
`)
	cols := []string{
		fmt.Sprintf("%d + s.n - 1", b.FirstID),
		"m.id",
		"s.ct",
		fmt.Sprintf("CASE WHEN %s AND %s > %s THEN %s ELSE %s END", amended, amendedAt, modified, amendedAt, modified),
		fmt.Sprintf("CASE WHEN s.d %% 100 < %d THEN s.ct + (1 + s.d / 100 %% 60) * %d ELSE s.ct END", b.LaterConsumptionPercent, dayMillis),
		fmt.Sprintf("s.ct + %d", validate),
		"af.id",
		"af.traffic_type",
		"af.source",
		ctype,
		creativeID,
		creativeName,
		pick("s.f", b.Countries, text),
		pick("s.f", b.Countries, text2),
		"printf('%016x%016x', s.a * 2147483648 + s.b, s.h * 2147483648 + s.i)",
		fmt.Sprintf("CASE WHEN s.d / 1000000 %% 100 < %d THEN %d ELSE %d END", b.NewCustomerPercent, afftrack.CustomerTypeNew, afftrack.CustomerTypeReturn),
		fmt.Sprintf("m.prefix || (%d + s.n - 1)", b.FirstID),
		fmt.Sprintf("CASE WHEN s.f / 10000 %% 100 < %d THEN %s END", b.NotesPercent, pickText("(s.f / 1000000)", b.Notes)),
		pick("(s.f / 100)", b.TrackingMethods, value),
		sale + " * 100",
		commission + " * 100",
		fmt.Sprintf("CASE WHEN m.override THEN (%s * 100 * 20 + 50) / 100 ELSE 0 END", commission),
		"m.cur_code",
		"m.cur_name",
		reported + " * 100",
		fmt.Sprintf("s.d / 10000 %% 100 < %d", b.ApprovedPercent),
		status,
		fmt.Sprintf("CASE WHEN %s = %d THEN s.pmon * %d + af.id END", status, afftrack.Status2Paid, b.Affiliates),
		fmt.Sprintf("CASE WHEN %s = %d THEN %s END", status, afftrack.Status2Void, pick("s.h", b.VoidReasons, value)),
		fmt.Sprintf("CASE WHEN %s THEN %s END", amended, pick("(s.h / 10000)", b.AmendedReasons, value)),
		couponCode,
		fmt.Sprintf("CASE WHEN s.i %% 100 < %d THEN af.id * 10 + s.i / 100 %% %d END", b.PlacementPercent, len(b.Placements)),
		fmt.Sprintf("CASE WHEN s.i %% 100 < %d THEN %s END", b.PlacementPercent, pickText("(s.i / 100)", b.Placements)),
	}
	w.WriteString("  " + strings.Join(cols, ",\n  ") + "\n")
	w.WriteString(q.joins(from))
	return w.String()
}

// invoices is the statement inserting the invoices of the affiliates with
// id 1 modulo InvoiceEvery: one per month of validation of their Paid
// transactions, their commission summed, GST added where registered.
func (q genQuery) invoices() string {
	b := q.b
	every := max(b.InvoiceEvery, 1)
	gst := "CASE WHEN af.gst THEN (x.sub + 5) / 10 END"
	return fmt.Sprintf(`INSERT INTO invoices (id, affiliate_id, date_created, date_paid, number, description, sub_total, gst, total)
SELECT x.id, x.aff, mo.created_ms, mo.paid_ms, 'INV-' || x.aff || '-' || mo.ym, mo.label, x.sub, %[1]s, x.sub + coalesce(%[1]s, 0)
FROM (SELECT invoice_id AS id, affiliate_id AS aff, sum(commission) AS sub FROM transactions
  WHERE id BETWEEN %[2]d AND %[3]d AND status2 = %[4]d AND affiliate_id %% %[5]d = %[6]d GROUP BY invoice_id, affiliate_id) x
CROSS JOIN temp.gen_month mo ON mo.k = (x.id - 1) / %[7]d
CROSS JOIN temp.gen_affiliate af ON af.id = x.aff
`, gst, b.FirstID, b.FirstID+int64(b.Transactions)-1, afftrack.Status2Paid, every, 1%every, b.Affiliates)
}

package generate

import (
	"math/rand/v2"

	"github.com/afftrack/afftrack"
)

// The tables below give generated records the look of a real network.
// They are ASCII but for a few accented names, and a few names carry an
// ampersand, so that encoders and escaping are exercised as real data
// would exercise them.

var merchantAdjectives = []string{
	"Blue", "Harbour", "Golden", "Urban", "Coastal", "Northern", "Southern", "Wild", "Little", "Grand",
	"Bright", "Silver", "Red", "Green", "Summit", "Rapid", "Quiet", "Modern", "Classic", "Island",
	"Outback", "Metro", "Sunny", "Crystal", "Evergreen", "Iron", "Maple", "Ocean", "Prairie", "Royal",
}

var merchantNouns = []string{
	"Outdoor", "Home", "Fashion", "Kitchen", "Garden", "Books", "Sports", "Pets", "Tech", "Beauty",
	"Travel", "Toys", "Wine", "Coffee", "Cycles", "Surf", "Linen", "Gourmet", "Audio", "Crafts",
	"Optics", "Furniture", "Jewellers", "Pharmacy", "Florists", "Camping", "Tools", "Music", "Games", "Denim",
}

var merchantSuffixes = []string{"Pty Ltd", "Co", "Store", "Supply", "& Co", "Direct", "Online", "Emporium"}

var firstNames = []string{
	"John", "Jane", "Ann", "Mark", "Sarah", "David", "Emma", "James", "Olivia", "Liam",
	"Chloe", "Noah", "Mia", "Jack", "Zoë", "Lucas", "Grace", "Ethan", "Ruby", "Oliver",
	"Isla", "Henry", "Amelia", "Leo", "Sofia", "Thomas", "Ava", "William", "Charlotte", "Samuel",
	"Priya", "Wei", "Aroha", "Mateo", "Fatima", "Kenji", "Nadia", "Tane", "Chen", "André",
}

var lastNames = []string{
	"Smith", "Jones", "Williams", "Brown", "Wilson", "Taylor", "Lee", "Martin", "Nguyen", "Anderson",
	"Thompson", "White", "Walker", "Harris", "Ryan", "Robinson", "Kelly", "King", "Davis", "Wright",
	"Patel", "Singh", "Chen", "Wang", "Murphy", "O'Brien", "Campbell", "Stewart", "Clarke", "Young",
	"Mitchell", "Ngata", "Rossi", "Müller", "Kim", "Tanaka", "Hughes", "Scott", "Green", "Baker",
}

var businessWords = []string{
	"Media", "Deals", "Reviews", "Rewards", "Cashback", "Digital", "Publishing", "Network", "Insights", "Coupons",
	"Lifestyle", "Guides", "Offers", "Marketing", "Content", "Savings", "Blog", "Studio", "& Partners", "Collective",
}

var brandWords = []string{
	"Acme", "Northwind", "Kestrel", "Alto", "Brindle", "Cobalt", "Driftwood", "Ember", "Fable", "Granite",
	"Halcyon", "Indigo", "Juniper", "Kauri", "Lumen", "Mariner", "Nimbus", "Orchard", "Pioneer", "Quill",
	"Riverstone", "Saltbush", "Tasman", "Umber", "Vantage", "Wattle", "Yarra", "Zephyr", "Crème", "Bower",
}

var productAdjectives = []string{
	"Classic", "Deluxe", "Everyday", "Premium", "Compact", "Lightweight", "Organic", "Vintage", "Pro", "Essential",
	"Waterproof", "Slim", "Heritage", "Eco", "Limited Edition", "Travel", "Signature", "Kids'", "Men's", "Women's",
}

var categories = []struct {
	name  string
	nouns []string
}{
	{"Clothing", []string{"T-Shirt", "Jacket", "Hoodie", "Dress", "Jeans", "Scarf"}},
	{"Shoes", []string{"Sneakers", "Boots", "Sandals", "Loafers", "Runners"}},
	{"Electronics", []string{"Headphones", "Charger", "Speaker", "Smart Watch", "Cable"}},
	{"Outdoor", []string{"Tent", "Backpack", "Sleeping Bag", "Head Torch", "Water Bottle"}},
	{"Home", []string{"Throw", "Lamp", "Cushion", "Candle", "Vase", "Towel Set"}},
	{"Kitchen", []string{"Knife Set", "Frying Pan", "Coffee Grinder", "Teapot", "Chopping Board"}},
	{"Beauty", []string{"Moisturiser", "Serum", "Lip Balm", "Shampoo", "Face Mask"}},
	{"Toys", []string{"Puzzle", "Building Set", "Plush Bear", "Board Game", "Kite"}},
	{"Books", []string{"Cookbook", "Novel", "Travel Guide", "Atlas", "Journal"}},
	{"Jewellery", []string{"Necklace", "Ring", "Bracelet", "Earrings", "Pendant"}},
	{"Sports", []string{"Yoga Mat", "Tennis Racquet", "Football", "Dumbbells", "Cycling Gloves"}},
	{"Food & Drink", []string{"Gift Hamper", "Olive Oil", "Chocolate Box", "Wine Pack", "Coffee Beans"}},
}

var bannerGroups = []string{"Seasonal", "Brand", "Sale", "Evergreen", "New Arrivals", "Clearance"}

var placementNames = []string{"Homepage Hero", "Sidebar", "Newsletter Header", "In-Article", "Footer", "Deals Page"}

var additionalNotes = []string{
	"Customer requested gift wrapping", "Order placed by phone after click", "Split shipment",
	"Price matched at checkout", "Delivery to a parcel locker", "Pre-order: ships next month",
}

var promotions = []string{"Spring Sale", "End of Financial Year", "Black Friday", "Boxing Day", "Free Shipping Week", "Member Week"}

var couponWords = []string{"SAVE", "WELCOME", "FREESHIP", "VIP", "FLASH", "EXTRA"}

// currencies are the currencies merchants report sales in, with the rate
// that turns the network's currency (AUD) into them, in 1/10000.
var currencies = []struct {
	code, name string
	per10k     int64
	weight     int
}{
	{"AUD", "Australian Dollar", 10000, 80},
	{"NZD", "New Zealand Dollar", 10900, 8},
	{"USD", "US Dollar", 6600, 7},
	{"GBP", "Pound Sterling", 5200, 3},
	{"EUR", "Euro", 6100, 2},
}

var countries = newWeighted(
	[][2]string{{"AUS", "Australia"}, {"NZL", "New Zealand"}, {"USA", "United States"}, {"GBR", "United Kingdom"},
		{"CAN", "Canada"}, {"SGP", "Singapore"}, {"DEU", "Germany"}, {"JPN", "Japan"}, {"IND", "India"}, {"FRA", "France"}},
	[]int{70, 12, 6, 4, 2, 2, 1, 1, 1, 1})

var trafficTypes = newWeighted(
	[]afftrack.TrafficType{afftrack.TrafficTypeWebsite, afftrack.TrafficTypeEmailList, afftrack.TrafficTypeSocialMediaPage,
		afftrack.TrafficTypeSearch, afftrack.TrafficTypeMobileApp, afftrack.TrafficTypeOther},
	[]int{45, 10, 20, 10, 8, 7})

var creativeTypes = newWeighted(
	[]afftrack.CreativeType{afftrack.CreativeTypeTextLink, afftrack.CreativeTypeBanner, afftrack.CreativeTypeCoupon,
		afftrack.CreativeTypePromotion, afftrack.CreativeTypeDataFeed},
	[]int{40, 30, 15, 10, 5})

var trackingMethods = newWeighted(
	[]afftrack.TrackingMethod{afftrack.TrackingMethodCookie, afftrack.TrackingMethodServer, afftrack.TrackingMethodClickless,
		afftrack.TrackingMethodMobileApp, afftrack.TrackingMethodAffiliate, afftrack.TrackingMethodManual,
		afftrack.TrackingMethodOther},
	[]int{70, 10, 5, 5, 4, 3, 3})

var voidReasons = newWeighted(
	[]afftrack.VoidReason{afftrack.VoidReasonCancelledOrder, afftrack.VoidReasonReturnedOrderUnclaimedShipment,
		afftrack.VoidReasonRepeatedDuplicateOrder, afftrack.VoidReasonFraudulentTransaction,
		afftrack.VoidReasonPaymentAuthorisationFailed, afftrack.VoidReasonOrderNonfulfillment,
		afftrack.VoidReasonAttributedToDifferentChannel, afftrack.VoidReasonTestTransaction, afftrack.VoidReasonSelfReferral,
		afftrack.VoidReasonComplianceBreach, afftrack.VoidReasonNonCommissionableTransaction},
	[]int{30, 20, 10, 8, 8, 6, 6, 4, 3, 3, 2})

var amendedReasons = newWeighted(
	[]afftrack.AmendedReason{afftrack.AmendedReasonPartialOrderReturn, afftrack.AmendedReasonCartItemsEdited,
		afftrack.AmendedReasonIncorrectSaleValue, afftrack.AmendedReasonIncorrectCommission,
		afftrack.AmendedReasonIncorrectCurrency},
	[]int{40, 20, 20, 15, 5})

// itemCounts is how many lines a cart has: 0 to 5, most often one.
var itemCounts = newWeighted([]int{0, 1, 2, 3, 4, 5}, []int{15, 35, 25, 13, 8, 4})

// quantities is how many of a product a cart line holds.
var quantities = newWeighted([]int64{1, 2, 3}, []int{75, 18, 7})

// hourWeights shape a day: quiet at night, busiest in the evening.
var hourWeights = []int{2, 1, 1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7, 6, 6, 6, 6, 7, 8, 9, 10, 9, 6, 4}

// weighted is a table of values picked at random in proportion to their
// weights. The tables are small, so a linear scan is as fast as anything.
type weighted[T any] struct {
	vals    []T
	weights []int
	total   int
}

// newWeighted returns the table of vals with their weights, which must
// be as many and positive.
func newWeighted[T any](vals []T, weights []int) weighted[T] {
	w := weighted[T]{vals: vals, weights: weights}
	for _, n := range weights {
		w.total += n
	}
	return w
}

func (w *weighted[T]) pick(r *rand.Rand) T {
	n := r.IntN(w.total)
	for i, wt := range w.weights {
		if n < wt {
			return w.vals[i]
		}
		n -= wt
	}
	return w.vals[len(w.vals)-1]
}

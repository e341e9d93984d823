package afftrack

import (
	"strings"
	"unicode/utf8"
)

// MaxMerchantCategories is how many categories (NewCategory ...
// NewCategory3) a merchant has at most.
const MaxMerchantCategories = 3

// maxCategoryPart bounds each part of a category, in characters.
const maxCategoryPart = 100

// categorySeparator joins a category's parent and child.
const categorySeparator = " / "

// ValidMerchantCategory checks a MerchantNewCategory (v1-surface.md
// section 8): open text of the form `Parent` or `Parent / Child`, each
// part 1 to 100 characters without `/`.
func ValidMerchantCategory(s string) error {
	parent, child, nested := strings.Cut(s, categorySeparator)
	parts := []string{parent}
	if nested {
		parts = append(parts, child)
	}
	for _, p := range parts {
		n := utf8.RuneCountInString(p)
		if n < 1 || n > maxCategoryPart || strings.Contains(p, "/") {
			return Errorf(EINVALID, "%q is not a category: `Parent` or `Parent / Child`, each part 1 to %d characters without /",
				s, maxCategoryPart)
		}
	}
	return nil
}

// CategoryParent returns the parent part of a MerchantNewCategory: the
// deprecated MerchantCategory it gives.
func CategoryParent(s string) string {
	parent, _, _ := strings.Cut(s, categorySeparator)
	return parent
}

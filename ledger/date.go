package ledger

import (
	"errors"
	"time"

	"github.com/remnant/passportkit/internal/calendar"
)

// Date is a calendar day as written in a REPUTATION.md file (YYYY-MM-DD),
// with no time of day and no zone. The zero Date means "no date".
type Date = calendar.Date

// ErrBadDate is returned by [ParseDate] for text that is not a real
// calendar day written as YYYY-MM-DD.
var ErrBadDate = errors.New("ledger: date is not a real day written as YYYY-MM-DD")

// ParseDate reads a date written as YYYY-MM-DD (four-digit year, two-digit
// month and day). It refuses anything else, including days that do not
// exist such as 2026-02-30.
func ParseDate(s string) (Date, error) {
	d, err := calendar.Parse(s)
	if err != nil {
		return Date{}, ErrBadDate
	}
	return d, nil
}

// DateOf returns the calendar day of t in t's own location.
func DateOf(t time.Time) Date { return calendar.Of(t) }

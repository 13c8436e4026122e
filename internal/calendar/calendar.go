// Package calendar is the one calendar-day type of the project: a date
// written YYYY-MM-DD, with no time of day and no zone, in the proleptic
// Gregorian calendar from year 0000 to 9999.
package calendar

import (
	"errors"
	"time"
)

// Date is a calendar day. The zero Date means "no date" and is never the
// result of Parse.
type Date struct {
	n int32 // days since 0000-01-01, plus one
}

// epochOffset is the n of 1970-01-01, from which the algorithms count.
const epochOffset = 719528 + 1

// ErrSyntax is returned by Parse for text that is not a real day written as
// YYYY-MM-DD.
var ErrSyntax = errors.New("calendar: date is not a real day written as YYYY-MM-DD")

// Parse reads a date written as YYYY-MM-DD (four-digit year, two-digit month
// and day). It refuses anything else, including days that do not exist,
// such as 2026-02-30.
func Parse(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, ErrSyntax
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return Date{}, ErrSyntax
	}
	return FromCivil(y, m, d), nil
}

// MustParse is Parse for constants; it panics on a malformed date.
func MustParse(s string) Date {
	d, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Of returns the calendar day of t in t's own location.
func Of(t time.Time) Date {
	y, m, d := t.Date()
	return FromCivil(y, int(m), d)
}

// FromCivil returns the Date of a valid year (0 to 9999), month and day.
func FromCivil(y, m, d int) Date {
	// H. Hinnant's days_from_civil, with years shifted by one era so that
	// the arithmetic never sees a negative year.
	y += 400
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return Date{n: int32(era*146097+doe-719468-146097) + epochOffset}
}

// Civil returns d's year, month and day.
func (d Date) Civil() (y, m, day int) {
	z := int(d.n) - epochOffset + 719468 + 146097 // shifted by one era, as in FromCivil
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y - 400, m, day
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.n == 0 }

// AddDays returns the day n days after d (before it when n is negative).
func (d Date) AddDays(n int) Date { return Date{n: d.n + int32(n)} }

// Sub returns the number of days from e to d.
func (d Date) Sub(e Date) int { return int(d.n - e.n) }

// Before reports whether d is an earlier day than e.
func (d Date) Before(e Date) bool { return d.n < e.n }

// After reports whether d is a later day than e.
func (d Date) After(e Date) bool { return d.n > e.n }

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.n < e.n:
		return -1
	case d.n > e.n:
		return 1
	}
	return 0
}

// String returns d as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.n == 0 {
		return ""
	}
	y, m, day := d.Civil()
	b := [10]byte{4: '-', 7: '-'}
	put := func(at, v, width int) {
		for i := width - 1; i >= 0; i-- {
			b[at+i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, y, 4)
	put(5, m, 2)
	put(8, day, 2)
	return string(b[:])
}

// MarshalText writes d as YYYY-MM-DD.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a date written as YYYY-MM-DD.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

func digits(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

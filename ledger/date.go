package ledger

import (
	"errors"
	"time"
)

// Date is a calendar day as written in a REPUTATION.md file (YYYY-MM-DD),
// with no time of day and no zone. The zero Date means "no date".
type Date struct {
	n int32 // days since 0000-03-01 in the proleptic Gregorian calendar, plus one
}

// ErrBadDate is returned by [ParseDate] for text that is not a real
// calendar day written as YYYY-MM-DD.
var ErrBadDate = errors.New("ledger: date is not a real day written as YYYY-MM-DD")

// ParseDate reads a date written as YYYY-MM-DD (four-digit year, two-digit
// month and day). It refuses anything else, including days that do not
// exist such as 2026-02-30.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, ErrBadDate
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return Date{}, ErrBadDate
	}
	return civil(y, m, d), nil
}

// DateOf returns the calendar day of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return civil(y, int(m), d)
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.n == 0 }

// AddDays returns the day n days after d (before d when n is negative).
func (d Date) AddDays(n int) Date { return Date{d.n + int32(n)} }

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
	y, m, day := d.civil()
	b := make([]byte, 10)
	put := func(at, v, width int) {
		for i := width - 1; i >= 0; i-- {
			b[at+i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, y, 4)
	b[4] = '-'
	put(5, m, 2)
	b[7] = '-'
	put(8, day, 2)
	return string(b)
}

// MarshalText writes d as YYYY-MM-DD.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a date written as YYYY-MM-DD.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// digits reads a run of ASCII digits.
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

// civil converts a valid year, month and day to a Date. Years are 0..9999,
// so the era arithmetic below never sees a negative year.
func civil(y, m, d int) Date {
	if m <= 2 {
		y--
	}
	era := (y + 400) / 400 // shifted by one era so that year -1 (Jan and Feb of year 0) stays positive
	yoe := y + 400 - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return Date{int32(era*146097 + doe - 146097 + 1 + 60)}
}

func (d Date) civil() (y, m, day int) {
	z := int(d.n) - 1 - 60 + 146097
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + (era-1)*400
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
	return y, m, day
}

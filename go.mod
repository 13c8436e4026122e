module github.com/remnant/passportkit

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/gowebpki/jcs v1.0.2
	golang.org/x/text v0.44.0
)

require go.yaml.in/yaml/v3 v3.0.6 // indirect

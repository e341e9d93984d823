module github.com/afftrack/afftrack

go 1.26.8

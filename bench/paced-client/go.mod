module schedulerops.dev/bench/paced-client

go 1.22

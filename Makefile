# htc - build, test, bench, fuzz, install.
CC      ?= cc
PREFIX  ?= /usr/local
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wno-unused-parameter
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4)
LUA_LIBS   := $(shell pkg-config --libs lua5.4)
DATADIR ?= $(CURDIR)

GEN_SRCS := $(filter-out gen/main.c,$(wildcard gen/*.c))
GEN_HDRS := $(wildcard gen/*.h) htc.h

htc: gen/main.c $(GEN_SRCS) $(GEN_HDRS)
	$(CC) $(CFLAGS) $(WARN) -DHTC_DATADIR='"$(DATADIR)"' $(LUA_CFLAGS) -o $@ gen/main.c $(GEN_SRCS) $(LUA_LIBS) -lm

.PHONY: test bench fuzz clean install asan
test: htc
	bash tests/run.sh

clean:
	rm -rf htc htc-asan build


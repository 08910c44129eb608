"""What the benchmarks and the tests share: throw-away databases
(``databases``), servers, Placer's or the reference's, and what they use
(``servers``), the HTTP and in-process clients (``client``), and what a
results file records of its run (``machine``). It imports nothing of the
scenarios or the report."""

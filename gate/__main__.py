from gate.entry import main

main()

from clinicrecords.cli import main

main()

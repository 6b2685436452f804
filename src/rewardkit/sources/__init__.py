"""Front doors that compile user files into a `Plan`."""

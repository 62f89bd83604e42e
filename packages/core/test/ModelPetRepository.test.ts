import { testPetRepository } from "../src/testing/PetRepositoryContract.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"

testPetRepository("reference model", ModelPetRepository.layer())
